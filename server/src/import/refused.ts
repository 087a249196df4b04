/** Why an import stops before it writes anything (unreachable or foreign source, bad arguments). */
export class ImportRefused extends Error {
  override name = 'ImportRefused';
}
