// What the report and diff pages share (inlined before each page's script): the only two ways
// their scripts put text from a trace on the page.
// el: an element whose text (never markup) is `text`; esc: text made safe inside a tooltip's HTML.
function el(tag, text, cls) {
  var e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function esc(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
