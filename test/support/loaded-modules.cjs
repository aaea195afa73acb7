// Preloaded into a built svc (NODE_OPTIONS=--require ...): at exit, writes the path of every
// CommonJS module the run loaded (native bindings included) to $SVC_TEST_LOADED_FILE, one a line.
process.on('exit', () => {
  require('node:fs').writeFileSync(process.env.SVC_TEST_LOADED_FILE, `${Object.keys(require.cache).join('\n')}\n`);
});
