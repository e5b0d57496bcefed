// Runs yoastseo's analysis the way its web worker does (Paper -> Researcher
// -> build the tree -> SEO and content assessors) on every article of the
// corpus named on stdin, and prints one JSON object per article. The Go test
// (../../yoast_diff_test.go) compares these with Herald's results.
//
// Input (stdin, JSON): [{name, text, keyword, title, titleWidth, locale}]
// Output (stdout, JSON): [{name, seo: {score, results: {id: {score, rating, text}}},
//                          readability: {...}, research: {...}}]
"use strict";
const Paper = require("yoastseo/build/values/Paper").default;
const EnglishResearcher = require("yoastseo/build/languageProcessing/languages/en/Researcher").default;
const LanguageProcessor = require("yoastseo/build/parse/language/LanguageProcessor").default;
const { build } = require("yoastseo/build/parse/build");
const SEOAssessor = require("yoastseo/build/scoring/assessors/seoAssessor").default;
const ContentAssessor = require("yoastseo/build/scoring/assessors/contentAssessor").default;
const scoreToRating = require("yoastseo/build/scoring/interpreters/scoreToRating").default;

function results(assessor, paper) {
  assessor.assess(paper);
  const rs = assessor.getValidResults();
  const out = {};
  for (const r of rs) {
    out[r.getIdentifier()] = { score: r.getScore(), rating: scoreToRating(r.getScore()), text: r.getText().replace(/<[^>]+>/g, "") };
  }
  return { results: out, aggregate: assessor.getScoreAggregator().aggregate(rs) };
}

function safe(f) {
  try { return f(); } catch (e) { return null; }
}

function analyze(a) {
  const paper = new Paper(a.text, { keyword: a.keyword || "", title: a.title || "", titleWidth: a.titleWidth || 0, locale: a.locale || "en_US" });
  const researcher = new EnglishResearcher(paper);
  paper.setTree(build(paper, new LanguageProcessor(researcher), []));
  const seo = results(new SEOAssessor(researcher), paper);
  const contentAssessor = new ContentAssessor(researcher);
  const readability = results(contentAssessor, paper);
  readability.overall = contentAssessor.calculateOverallScore();
  const r = (name) => safe(() => researcher.getResearch(name));
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
