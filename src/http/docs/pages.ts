/**
 * The docs pages, served from the executable itself: a box on a LAN with no
 * internet must still show them, so the Swagger UI files are embedded, not
 * loaded from a CDN.
 */
import { Elysia } from "elysia";
import swaggerCssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import swaggerBundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import { type ErrorCode, errorCatalog } from "../../lib/errors.ts";

const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fieldhub API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>body{margin:0} .fh-top{font:14px system-ui,sans-serif;padding:8px 16px;background:#1f2937;color:#fff}.fh-top a{color:#93c5fd}</style>
</head>
<body>
<div class="fh-top">fieldhub API · <a href="/docs/json">OpenAPI 3.1 JSON</a> · <a href="/docs/errors">Error codes</a></div>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.onload=()=>{window.ui=SwaggerUIBundle({url:"/docs/json",dom_id:"#swagger-ui",deepLinking:true});};</script>
</body>
</html>`;

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function errorsPage(): string {
  const rows = (Object.keys(errorCatalog) as ErrorCode[])
    .map((code) => {
      const entry = errorCatalog[code];
      return `<section id="${code}"><h2><code>${code}</code> <small>${entry.status} ${escapeHtml(entry.title)}</small></h2><p>${escapeHtml(entry.when).replace(/`([^`]+)`/g, "<code>$1</code>")}</p></section>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fieldhub API errors</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}small{color:#555;font-weight:normal}section:target{background:#fef9c3}</style>
</head><body>
<h1>Error codes</h1>
<p>Errors are RFC 9457 problem details (<code>application/problem+json</code>) with the fields <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code> (for people, may change), <code>code</code> (stable: branch on it) and <code>request_id</code> (equal to the <code>X-Request-Id</code> header). The <code>type</code> of a problem is this page with the code as its fragment.</p>
${rows}
<p><a href="/docs">API reference</a></p>
</body></html>`;
}

export function docsRoutes(openApiJson: () => Promise<string>) {
  const html = { "content-type": "text/html; charset=utf-8" };
  const json = { "content-type": "application/json" };
  const errorsHtml = errorsPage();
  return new Elysia()
    .get("/docs", () => new Response(docsPage, { headers: html }))
    .get("/docs/errors", () => new Response(errorsHtml, { headers: html }))
    .get("/docs/json", async () => new Response(await openApiJson(), { headers: json }))
    .get("/openapi.json", async () => new Response(await openApiJson(), { headers: json }))
    .get("/docs/assets/swagger-ui-bundle.js", () => new Response(Bun.file(swaggerBundlePath)))
    .get("/docs/assets/swagger-ui.css", () => new Response(Bun.file(swaggerCssPath)));
}
