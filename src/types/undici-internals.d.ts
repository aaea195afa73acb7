// undici's Agent and request modules, loaded directly (see src/api/undici.ts); typed there.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: unknown;
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  const request: unknown;
  export default request;
}
