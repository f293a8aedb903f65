/** The dashboard's one stylesheet: readable on a phone, contrast above WCAG AA, visible focus. */
export const DASHBOARD_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff}
header{display:flex;flex-wrap:wrap;gap:.75rem 1.5rem;align-items:center;padding:.75rem 1rem;background:#0b3d62;color:#fff}
.brand{font-weight:700}
nav{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
nav a,nav .link{color:#fff}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
main{max-width:56rem;margin:0 auto;padding:1rem}
a{color:#0b4f8a}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
button,.button{display:inline-block;font:inherit;padding:.5rem 1rem;border:0;border-radius:4px;background:#0b4f8a;color:#fff;text-decoration:none;cursor:pointer;min-height:44px}
button.danger{background:#a4161a}
button.link{background:none;padding:0;min-height:0;text-decoration:underline}
form.inline{display:inline}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
.facts dt{font-weight:600}
.facts dd{margin:0;overflow-wrap:anywhere}
.warn,.error{color:#a4161a}
.notice{border:2px solid #0b4f8a;border-radius:6px;padding:0 1rem 1rem;margin-bottom:1rem}
textarea.key{white-space:pre;overflow-x:auto;resize:vertical}
.snippet{margin-top:.75rem}
.snippet label{display:block}
input.key,textarea.key{width:100%;font:14px/1.6 ui-monospace,monospace;padding:.5rem;margin:.25rem 0 .5rem;border:1px solid #555}
table{border-collapse:collapse;width:100%;margin-top:1rem}
caption{text-align:left;font-weight:600}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #ccc;overflow-wrap:anywhere}
.skip{position:absolute;left:-999px;top:.5rem;padding:.5rem 1rem;background:#fff;color:#0b4f8a;font-weight:600}
.skip:focus{left:1rem}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.chart{width:100%;height:auto;max-width:40rem}
.chart rect{fill:#0b4f8a}
.chart text{font-size:10px;fill:#333}
.chart .axis{stroke:#555;stroke-width:1}
@media (max-width:30rem){th:nth-child(3),td:nth-child(3){display:none}.facts{grid-template-columns:1fr}.facts dd{margin-bottom:.5rem}}
`;

/** Progressive enhancement only: the copy button. Everything else works without JavaScript. */
export const DASHBOARD_JS = `
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-copy]");
  if (!button) return;
  var input = document.getElementById(button.getAttribute("data-copy"));
  input.select();
  var done = function () { button.textContent = "Copied"; };
  if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
  else { document.execCommand("copy"); done(); }
});
`;
