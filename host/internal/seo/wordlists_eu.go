package seo

// Word lists of the other supported languages, written for Herald from
// standard grammars of each language (connectives taught as "Konnektoren",
// "conectores", "connecteurs logiques", "connettivi", "signaalwoorden";
// function words are each language's articles, pronouns, prepositions,
// conjunctions and auxiliaries). They are deliberately modest: common
// words a writer actually uses.

const (
	deVowels = "aeiouyäöü"
	esVowels = "aeiouáéíóúü"
	frVowels = "aeiouyàâéèêëîïôûùüÿœæ"
	itVowels = "aeiouàèéìíòóùú"
	nlVowels = "aeiouyëïéèáóú"
)

const deFunction = `der die das den dem des ein eine einen einem einer eines und oder aber doch sondern denn ich du er
sie es wir ihr mich dich sich uns euch mir dir ihm ihn ihnen mein dein sein unser euer nicht kein keine ist sind war
waren bin bist wird werden wurde wurden hat haben hatte hatten kann können muss müssen soll sollen will wollen auch
noch schon nur sehr mit von zu zum zur bei aus nach vor für über unter auf an in im am um durch gegen ohne als wie
wenn dass ob weil damit so dann hier dort was wer wo man`

const deTransitions = `aber allerdings also anschließend außerdem bevor dadurch daher damit danach dann darum deshalb
deswegen dennoch doch ebenfalls ebenso endlich erstens folglich gleichzeitig hingegen insbesondere jedoch nachdem
nämlich obwohl schließlich seitdem sobald sodass sofern somit sondern stattdessen trotzdem während weil wenn
zudem zuerst zuletzt zunächst zweitens beispielsweise außerdem ferner schließlich letztlich
denn dabei darauf bald dafür dagegen`

const deTransitionPhrases = `zum beispiel, im gegensatz dazu, auf der anderen seite, im folgenden, vor allem,
aus diesem grund, im übrigen, mit anderen worten, zum schluss, im vergleich dazu, nicht nur, so dass`

const deFirst = `der die das den dem des ein eine einen einem einer eines eins zwei drei vier fünf sechs sieben acht neun zehn`

const esFunction = `el la los las un una unos unas y o pero sino que de del a al en con por para sin sobre entre
hasta desde yo tú él ella nosotros vosotros ellos ellas me te se nos os le les lo mi tu su nuestro es son era eran
fue fueron ser estar está están estaba ha han había haber muy más menos también no ya como cuando donde quien cual
este esta estos estas ese esa esos esas si porque aunque cómo qué
` + esPeriphrasis

// esPeriphrasis are the auxiliaries of Spanish verbal periphrases
// ("empezar a correr", "puede hacer", "suele llover", "acaba de salir"):
// they carry tense and aspect, the verb after them the meaning, so a
// keyphrase's content is the verb they lead to.
const esPeriphrasis = `empezar empieza empiezan comenzar comienza comienzan poder puede pueden deber debe deben
soler suele suelen acabar acaba acaban seguir sigue siguen continuar continúa continúan querer quiere quieren`

const esTransitions = `además asimismo también igualmente incluso pero aunque mientras porque pues
entonces luego después antes finalmente primero segundo tercero consecuentemente así efectivamente
ciertamente obviamente cuando si hasta durante excepto salvo`

const esTransitionPhrases = `sin embargo, por ejemplo, es decir, por lo tanto, por eso, en cambio, por otro lado,
en primer lugar, en segundo lugar, en resumen, en conclusión, a pesar de, al contrario, de hecho, por último,
a continuación, al mismo tiempo, en cuanto a, por consiguiente, dado que, ya que, con el fin de, antes de,
así que, es más, por eso`

const esFirst = `el la los las un una unos unas este esta estos estas uno dos tres cuatro cinco seis siete ocho nueve diez`

const frFunction = `le la les l un une des du de d et ou mais donc or ni car que qui quoi dont où je tu il elle on
nous vous ils elles me te se lui leur mon ton son ma ta sa mes tes ses notre votre nos vos ce cet cette ces est sont
était étaient être avoir a ont avait avaient pas ne plus très aussi en y à au aux dans par pour sur sous avec sans
chez entre vers comme si quand`

const frTransitions = `ainsi alors aussi cependant certes donc enfin ensuite d'abord puis néanmoins pourtant toutefois
également car puisque quand lorsque mais finalement premièrement deuxièmement troisièmement
notamment effectivement autrement sinon désormais auparavant aussitôt`

const frTransitionPhrases = `par exemple, en effet, c'est-à-dire, par conséquent, en outre, de plus, en revanche,
par contre, d'une part, d'autre part, en conclusion, en résumé, tout d'abord, en premier lieu, bien que, afin de,
à cause de, grâce à, au contraire, de même, en fait, en somme, pour conclure, parce que, alors que, tandis que`

const frFirst = `le la les l un une des ce cet cette ces deux trois quatre cinq six sept huit neuf dix`

const itFunction = `il lo la i gli le un uno una e ed o ma però che di del della dei degli delle a al alla ai agli
alle da dal dalla in nel nella con su sul sulla per tra fra io tu lui lei noi voi loro mi ti si ci vi ne mio tuo suo
nostro vostro è sono era erano essere avere ha hanno aveva non più molto anche come quando dove chi cui questo
questa questi queste quello quella se perché`

const itTransitions = `inoltre anche pure però tuttavia ma invece quindi dunque perciò pertanto infatti poi dopo prima
infine finalmente allora mentre perché poiché sebbene benché quando se ovvero cioè comunque eppure ugualmente
successivamente innanzitutto anzitutto soprattutto così`

const itTransitionPhrases = `per esempio, ad esempio, in primo luogo, in secondo luogo, in conclusione, in altre
parole, al contrario, d'altra parte, di conseguenza, in particolare, per questo, in sintesi, oltre a, a causa di,
dal momento che, in modo che, allo stesso tempo, prima di tutto, più importante`

const itFirst = `il lo la i gli le l un uno una questo questa questi queste due tre quattro cinque sei sette otto nove dieci`

const nlFunction = `de het een en of maar want dus ik jij je hij zij ze wij we jullie u mij me hem haar ons hun mijn
jouw zijn onze is was waren ben bent wordt worden werd werden heeft hebben had hadden kan kunnen moet moeten zal
zullen niet geen ook nog al wel zeer heel van in op aan met voor door over bij uit naar om tot te dat die dit deze
wat wie waar als hoe er`

const nlTransitions = `ook bovendien daarnaast verder tevens maar echter toch daarentegen dus daarom daardoor
zodoende immers want omdat doordat aangezien eerst daarna vervolgens tenslotte uiteindelijk
namelijk bijvoorbeeld zoals terwijl hoewel ofschoon wanneer indien als zodat voordat nadat sinds kortom`

const nlTransitionPhrases = `met andere woorden, in de eerste plaats, aan de andere kant, in tegenstelling tot,
ten eerste, ten tweede, tot slot, als gevolg van, in het kort, net als, niet alleen, op dezelfde manier,
in plaats van`

const nlFirst = `de het een dit deze dat die twee drie vier vijf zes zeven acht negen tien`
