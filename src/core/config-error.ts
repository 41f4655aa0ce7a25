/** A configuration mistake the operator must fix; printed as one line, never a stack. */
export class ConfigError extends Error {}
