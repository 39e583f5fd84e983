/**
 * What the task summary (shown in the Temporal UI, stored unencrypted) hides: values under
 * names that look secret, at any depth, and values that look like credentials whatever their
 * name (a DSN's password, `NAME_SECRET=…`, a JWT, a bearer token, well-known key formats).
 */

/** Names that are secrets wherever they appear inside a name (`dbPassword`, `X-Api-Key`). */
const SECRET_PART = /pass|secret|token|key|auth|credential|cookie|session|private|signature|bearer/i;
/** Short names that are secrets only as a whole word of the name (`pin`, `user_pwd`; not `spinner`). */
const SECRET_WORDS = new Set([
  'pw',
  'pwd',
  'pin',
  'otp',
  'cvv',
  'cvc',
  'cvv2',
  'ssn',
  'jwt',
  'sig',
  'creds',
  'cred',
  'dsn',
  'iban',
  'mfa',
  '2fa',
  'totp',
]);

/** Whether a value under this name is hidden. */
export function isSecretName(name: string): boolean {
  if (SECRET_PART.test(name)) return true;
  // words of camelCase, snake_case, kebab-case and dotted names
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => SECRET_WORDS.has(w));
}

const VALUE_RULES: Array<[RegExp, string]> = [
  // scheme://user:password@host
  [/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^/\s@]+@/gi, '$1***@'],
  // NAME=value where the name looks secret (AWS_SECRET_ACCESS_KEY=…, DB_PASSWORD=…)
  [/\b([A-Za-z0-9_.-]*(?:pass|secret|token|key|pwd|auth|credential)[A-Za-z0-9_.-]*\s*=\s*)("[^"]*"|'[^']*'|[^\s,;&]+)/gi, '$1***'],
  // Authorization: Bearer …
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 ***'],
  // a JWT
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '***'],
  // well-known key formats: AWS access key ids, OpenAI/Stripe-style sk-…, GitHub and Slack tokens
  [
    /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\b(?:sk|rk|pk)[-_](?:live_|test_)?[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abpors]-[A-Za-z0-9-]{10,}/g,
    '***',
  ],
];

/** The text with credential-looking parts replaced by ***. */
export function maskSecretValues(text: string): string {
  return VALUE_RULES.reduce((t, [re, to]) => t.replace(re, to), text);
}

/** The value with secrets hidden, at any depth. */
export function masked(value: unknown): unknown {
  if (typeof value === 'string') return maskSecretValues(value);
  if (Array.isArray(value)) return value.map(masked);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSecretName(k) ? '***' : masked(v)]));
}
