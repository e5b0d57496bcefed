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
way ways often also just still already always never one two three four five six seven eight nine ten`)

// englishMarkers are the commonest English words; a text where they make
// up a good share of the words is taken as English.
var englishMarkers = set(`the and of to a in is that it for on with as are be this was by not or you your from at`)

// English transition words, written for Herald from the usual grammar-book
// classes rather than taken from another tool: conjunctive adverbs
// (however, therefore), subordinating conjunctions that link a clause to
// the one before (because, although, when, if, until, whether), sequence
// and time markers (then, later, during), and comparison and
// example markers (than, another, including, likewise). Sources: the
// Purdue OWL's transition lists and the subordinating conjunctions of the
// Cambridge Grammar of English.
var enTransitions = set(`accordingly additionally admittedly afterward afterwards albeit also although altogether
another because before besides but certainly chiefly clearly comparatively concurrently consequently conversely
correspondingly definitely despite during earlier equally especially eventually evidently finally
firstly following formerly forthwith fourthly further furthermore generally hence henceforth however if
importantly including indeed initially instead lastly later likewise meanwhile moreover namely naturally
nevertheless nonetheless notably notwithstanding obviously occasionally originally otherwise overall
particularly presently previously primarily rather regardless secondly shortly significantly similarly
simultaneously since so soon specifically still subsequently surely than then thereafter thereby therefore
thereupon thirdly though thus till ultimately undeniably undoubtedly unless unlike unquestionably until
when whenever whereas whether while whilst`)

// enTransitionPhrases are English transitions of two or more words.
var enTransitionPhrases = phrases(`above all, after all, after that, all in all, all of a sudden, along with, as a result,
as a matter of fact, as an illustration, as for, as long as, as much as, as soon as, as well as, as you can see,
at any rate, at first, at last, at least, at the same time, at this point, because of, before long, by all means,
by and large, by contrast, by the same token, by the way, due to, even if, even so, even though, first of all,
for example, for instance, for one thing, for the most part, for this reason, from time to time, given that,
in addition, in any case, in brief, in conclusion, in contrast, in effect, in fact, in general, in other words,
in particular, in short, in spite of, in summary, in that case, in the end, in the first place, in the meantime,
in the same way, in turn, in order to, even more, what is more, more importantly, most importantly, no doubt, not only, now that, of course,
on the contrary, on the other hand, on the whole, once again, only if, owing to, provided that, rather than,
so as to, so that, sooner or later, such as, that is, that is to say, to begin with, to illustrate, to put it
differently, to sum up, up to now, with this in mind`)

// enFirstWordSkip are sentence openers that do not make a sentence start
// by themselves: articles, demonstratives and number words. Sentences
// starting "The cat…" and "The dog…" start differently.
var enFirstWordSkip = set(`the a an this that these those one two three four five six seven eight nine ten`)

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
