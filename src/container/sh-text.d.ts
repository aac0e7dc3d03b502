// esbuild's `.sh: text` loader (scripts/bundle.mjs) turns `import x from './x.sh'` into the file's text.
declare module '*.sh' {
  const text: string;
  export default text;
}
