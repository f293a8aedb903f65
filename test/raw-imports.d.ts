/** Vite's `?raw` imports: a fixture file's text. */
declare module "*?raw" {
  const text: string;
  export default text;
}
