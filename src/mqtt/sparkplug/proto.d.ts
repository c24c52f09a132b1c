// A .proto file imported `with { type: "text" }` is its text, also inside a compiled executable.
declare module "*.proto" {
  const text: string;
  export default text;
}
