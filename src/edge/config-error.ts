/**
 * A configuration mistake (a missing binding, a weak secret, a rule naming an undefined
 * group): answered as `500 config_error` with a message that names the fix. Its own module,
 * so every settings reader can throw it without importing the others.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
