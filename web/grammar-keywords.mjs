// The language's keywords, derived from the grammar (dsl/rules.lark): every word literal
// ("ruleset", "when", ...) is one. The one source of the keyword lists of the studio page
// (src/keywords.generated.ts, by build.mjs) and of the VS Code extension's TextMate grammar
// (editors/vscode/build.mjs).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const GRAMMAR = fileURLToPath(new URL("../dsl/rules.lark", import.meta.url));

export function grammarKeywords() {
  const grammar = readFileSync(GRAMMAR, "utf8").replace(/^\s*\/\/.*$/gm, "");
  return [...new Set([...grammar.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]))].sort();
}
