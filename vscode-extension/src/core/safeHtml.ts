// Keeps only the HTML that Markdown itself produces: data (file names, lane names, surfaces)
// that reached the server's Markdown as raw HTML is shown as text, never rendered. Pure.

/** Elements the Markdown renderer emits for what the server writes (tables, code, lists, emphasis). */
const ALLOWED = new Set([
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code", "pre", "blockquote",
  "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "span",
]);
/** The one attribute kept: the column alignment Markdown tables carry. */
const ALIGN = /\sstyle="text-align:\s*(left|right|center);?"/;
const TAG_OR_COMMENT = /<!--[\s\S]*?(?:-->|$)|<(\/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)>/g;

function asText(segment: string): string {
  return segment.replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Rebuilds rendered Markdown so that the only tags left are allowed ones, written by us without
 * attributes (but table alignment); every other `<` and `>` becomes text. Entities pass as they are.
 */
export function safeMarkdownHtml(html: string): string {
  let out = "";
  let last = 0;
  for (const match of html.matchAll(TAG_OR_COMMENT)) {
    const index = match.index ?? 0;
    out += asText(html.slice(last, index));
    last = index + match[0].length;
    const [whole, closing = "", rawName, attributes = ""] = match;
    if (rawName === undefined) {
      continue; // a comment: dropped
    }
    const name = rawName.toLowerCase();
    if (!ALLOWED.has(name)) {
      out += asText(whole);
      continue;
    }
    const align = closing === "" && (name === "th" || name === "td") ? ALIGN.exec(attributes) : null;
    out += align !== null ? `<${name} style="text-align:${align[1]}">` : `<${closing}${name}>`;
  }
  return out + asText(html.slice(last));
}
