/** Secret masking: names that are secrets, and credentials in values under any name. */
import { isSecretName, maskSecretValues } from '../../../../src/mcp/core/masking';

test.each([
  'pwd',
  'pw',
  'pin',
  'otp',
  'cvv',
  'ssn',
  'jwt',
  'bearer',
  'creds',
  'sig',
  'cvc',
  'userPwd',
  'card_pin',
  'X-Api-Key',
  'password',
  'clientSecret',
  'privateKey',
])('%s is a secret name', (name) => expect(isSecretName(name)).toBe(true));
test.each(['spinner', 'shopping', 'design', 'signal', 'description', 'amount', 'name', 'opinion'])('%s is not', (name) =>
  expect(isSecretName(name)).toBe(false),
);

test.each([
  ['postgres://app:hunter2@db.internal:5432/app', 'postgres://app:***@db.internal:5432/app'],
  ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AWS_SECRET_ACCESS_KEY=***'],
  ['export DB_PASSWORD="s3 cret" && run', 'export DB_PASSWORD=*** && run'],
  ['Authorization: Bearer abcdefghijklmnop', 'Authorization: Bearer ***'],
  ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_abc', 'token ***'],
  ['key AKIAIOSFODNN7EXAMPLE here', 'key *** here'],
  ['sk-proj-abcdefghijklmnopqrstuvwx', '***'],
  ['just a normal sentence: 12 apples', 'just a normal sentence: 12 apples'],
])('value %s', (value, expected) => expect(maskSecretValues(value)).toBe(expected));
