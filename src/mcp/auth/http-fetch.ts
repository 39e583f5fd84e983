import { AuthServerUnavailableError } from './errors';

/** GET/POST JSON from the authorization server within `timeoutMs`; every failure is an AuthServerUnavailableError naming the URL. */
export async function fetchJson(url: string, timeoutMs: number, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json', ...init.headers },
    });
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message;
    throw new AuthServerUnavailableError(`authorization server unreachable (${url}): ${why}`);
  }
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AuthServerUnavailableError(`authorization server answered ${url} with HTTP ${res.status} and no JSON`);
  }
  return { status: res.status, body };
}
