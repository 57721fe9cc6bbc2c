// Quick check of the Scrapinghub figures while iterating: extractHtml on the 181 pages, the benchmark's metric.
import { loadBenchmarkPages, scorePredictions, type Predictions } from './benchmark-pages.js';
import { extractHtml } from '../src/extract/index.js';

const { pages, truth } = loadBenchmarkPages();
const predictions: Predictions = {};
for (const page of pages) predictions[page.id] = { articleBody: extractHtml(page.html, page.url).text };
const s = await scorePredictions(truth, predictions);
const empty = pages.filter((page) => predictions[page.id]!.articleBody.trim() === '').length;
console.log(`scrapinghub F1 ${s.f1.toFixed(4)} P ${s.precision.toFixed(4)} R ${s.recall.toFixed(4)} empty ${empty}`);
