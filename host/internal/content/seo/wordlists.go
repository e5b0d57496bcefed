package seo

import "strings"

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// stopwords are English function words: they split RAKE candidates and
// their share tells English text from other languages.
var stopwords = set(`a about above after again against all also am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
during each either even ever every few for from further get gets got had hadn't has hasn't have haven't having he
her here hers herself him himself his how however i if in into is isn't it it's its itself just least less let's
like may me might more most much must my myself neither no nor not now of off on once one only or other our ours
ourselves out over own per rather really same shall she should shouldn't since so some such than that that's the
their theirs them themselves then there there's these they this those though through thus to too under until up
upon us very via was wasn't we well were weren't what when where whether which while who whom whose why will with
within without won't would wouldn't yet you your yours yourself yourselves make makes made use used using new many
way ways often also just still already always never`)

// englishMarkers are the commonest English words; a text where they make
// up a good share of the words is taken as English.
var englishMarkers = set(`the and of to a in is that it for on with as are be this was by not or you your from at`)

// transitions are English transition words and phrases (single words and
// two- or three-word phrases), the signal readers follow between ideas.
var transitions = set(`accordingly additionally afterwards also although altogether besides because but
consequently conversely equally especially eventually finally first firstly further furthermore hence however
indeed instead lastly likewise meanwhile moreover namely nevertheless next nonetheless notably otherwise overall
previously second secondly similarly since so specifically still subsequently then therefore third thirdly thus
ultimately undoubtedly whereas while yet though unlike despite meanwhile`)

var transitionPhrases = []string{
	"as a result", "for example", "for instance", "in addition", "in contrast", "in fact", "in other words",
	"in short", "in summary", "in conclusion", "on the other hand", "to begin with", "as well as", "after all",
	"above all", "at the same time", "by contrast", "even though", "first of all", "in particular",
	"in the same way", "of course", "on the contrary", "such as", "that is", "to sum up", "so that", "due to",
	"because of", "in general", "as long as", "in order to", "to illustrate", "more importantly",
}

// beForms are the auxiliaries of an English passive ("is written",
// "were being made", "got fired").
var beForms = set(`am is are was were be been being get gets got gotten getting`)

// irregularParticiples are common English irregular past participles.
var irregularParticiples = set(`arisen awoken borne born beaten become begun bent bet bid bitten bled blown broken
bred brought built burnt bought caught chosen clung come cost crept cut dealt dug done drawn dreamt drunk driven
eaten fallen fed felt fought found fled flung flown forbidden forgotten forgiven frozen given gone ground grown hung
heard hidden hit held hurt kept knelt known laid led leant learnt left lent lain lit lost made meant met paid put
quit read ridden rung risen run said seen sought sold sent set shaken shed shone shot shown shut sung sunk sat slept
slid slung spoken spent spun spread sprung stood stolen stuck stung struck sworn swept swum swung taken taught torn
told thought thrown understood woken worn woven wept won wound written`)
