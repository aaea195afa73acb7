// The completion scripts in src/commands/completion/shells/, imported as their text (the bundle's
// esbuild text loader, and vitest.config.ts for the tests).
declare module '*.bash' {
  const script: string;
  export default script;
}
declare module '*.zsh' {
  const script: string;
  export default script;
}
declare module '*.fish' {
  const script: string;
  export default script;
}
declare module '*.ps1' {
  const script: string;
  export default script;
}
