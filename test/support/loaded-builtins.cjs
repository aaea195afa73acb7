// Preloaded into a built svc (NODE_OPTIONS=--require ...): at exit, writes the name of every
// built-in module of Node the run loaded (http, net, ...) to $SVC_TEST_LOADED_FILE, one a line.
process.on('exit', () => {
  const names = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  require('node:fs').writeFileSync(process.env.SVC_TEST_LOADED_FILE, `${names.join('\n')}\n`);
});
