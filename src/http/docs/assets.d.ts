// Files imported `with { type: "file" }` resolve to a path Bun.file can open,
// also inside a compiled executable.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "*.html" {
  const page: import("bun").HTMLBundle;
  export default page;
}
