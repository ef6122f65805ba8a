// import-in-the-middle's loader hook, by address. Resolved from this module when the service runs from
// its sources; a bundle of the service is given the address its build resolved (@omc/infra bundles.ts),
// since from inside a bundle the package would be looked up beside the bundle, not beside service-kit.
export function hookUrl(): string {
  return import.meta.resolve('import-in-the-middle/hook.mjs');
}
