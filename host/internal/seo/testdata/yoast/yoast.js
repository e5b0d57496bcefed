// Runs yoastseo's analysis the way its web worker does (Paper -> Researcher
// -> build the tree -> SEO and content assessors) on every article of the
// corpus named on stdin, and prints one JSON object per article. The Go test
// (../../yoast_diff_test.go) compares these with Herald's results.
//
// Input (stdin, JSON): [{name, text, keyword, title, titleWidth, locale}]; the locale
// (en_US, de_DE, es_ES, fr_FR, it_IT, nl_NL) picks the language's Researcher.
// Output (stdout, JSON): [{name, seo: {score, comparableScore, results: {id: {score, rating, text}}},
//                          readability: {...}, research: {...}}]
"use strict";
// yoastseo keeps module-level caches (memoized researches) that leak from
// one paper to the next when several are analysed in one process; the
// worker analyses one paper per change. So every article gets freshly
// loaded modules, as if it were the first.
let Paper, researcher, LanguageProcessor, build, SEOAssessor, ContentAssessor, scoreToRating;
function load() {
  for (const k of Object.keys(require.cache)) {
    if (k.includes("node_modules")) delete require.cache[k];
  }
  Paper = require("yoastseo/build/values/Paper").default;
  // The language's Researcher, as the worker loads it for the locale.
  researcher = (lang) => require(`yoastseo/build/languageProcessing/languages/${lang}/Researcher`).default;
  LanguageProcessor = require("yoastseo/build/parse/language/LanguageProcessor").default;
  ({ build } = require("yoastseo/build/parse/build"));
  SEOAssessor = require("yoastseo/build/scoring/assessors/seoAssessor").default;
  ContentAssessor = require("yoastseo/build/scoring/assessors/contentAssessor").default;
  scoreToRating = require("yoastseo/build/scoring/interpreters/scoreToRating").default;
}

// results runs an assessor as the analysis worker does and aggregates
// its results with the assessor's own score aggregator, given every
// result of an applicable assessment (those without text too: the SEO
// aggregator counts them). left are identifiers taken out of the
// comparable score (checks of inputs Herald does not take).
function results(assessor, paper, left) {
  assessor.assess(paper);
  const all = assessor.results;
  const out = {};
  for (const r of assessor.getValidResults()) {
    out[r.getIdentifier()] = { score: r.getScore(), rating: scoreToRating(r.getScore()), text: r.getText().replace(/<[^>]+>/g, "") };
  }
  const agg = assessor.getScoreAggregator();
  const comparable = all.filter((r) => !left.includes(r.getIdentifier()));
  return { results: out, score: agg.aggregate(all), comparableScore: agg.aggregate(comparable) };
}

// Checks of inputs Herald does not take (meta description, slug).
const yoastOnly = ["metaDescriptionKeyword", "metaDescriptionLength", "slugKeyword"];

function safe(f) {
  try { return f(); } catch (e) { return null; }
}

function analyze(a) {
  load();
  const paper = new Paper(a.text, { keyword: a.keyword || "", title: a.title || "", titleWidth: a.titleWidth || 0, locale: a.locale || "en_US" });
  const Researcher = researcher((a.locale || "en_US").slice(0, 2));
  const researcher_ = new Researcher(paper);
  paper.setTree(build(paper, new LanguageProcessor(researcher_), []));
  const seo = results(new SEOAssessor(researcher_), paper, yoastOnly);
  const contentAssessor = new ContentAssessor(researcher_);
  // The worker tells the readability aggregator the locale: a fully
  // supported language gets the lenient penalty bands.
  contentAssessor.getScoreAggregator().setLocale(paper.getLocale());
  const readability = results(contentAssessor, paper, []);
  const r = (name) => safe(() => researcher_.getResearch(name));
  const sentences = r("countSentencesFromText") || [];
  const passive = r("getPassiveVoiceResult");
  const transitions = r("findTransitionWords");
  const kc = a.keyword ? r("getKeyphraseCount") : null;
  const kd = a.keyword ? r("getKeyphraseDensity") : null;
  const links = r("getLinkStatistics");
  return {
    name: a.name,
    seo,
    readability,
    research: {
      words: r("wordCountInText")?.count ?? null,
      sentences: sentences.length,
      sentenceWords: sentences.map((s) => s.sentenceLength),
      flesch: r("getFleschReadingScore")?.score ?? null,
      passiveSentences: passive ? passive.passives.length : null,
      transitionSentences: transitions ? transitions.transitionWordSentences : null,
      totalSentences: transitions ? transitions.totalSentences : null,
      keyphraseCount: kc ? kc.count : null,
      keyphraseDensity: kd ? kd.density : null,
      internalLinks: links ? links.internalTotal : null,
      externalLinks: links ? links.externalTotal : null,
      images: r("imageCount"),
    },
  };
}

let input = "";
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  const articles = JSON.parse(input);
  process.stdout.write(JSON.stringify(articles.map(analyze)));
});
