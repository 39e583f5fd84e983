import {
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  type OAuthMetadata,
} from '@modelcontextprotocol/server';

export const PRM_PATH = '/.well-known/oauth-protected-resource';

export interface PrmOptions {
  issuer: string;
  scopesSupported: string[];
  resourceName: string;
}

/** RFC 9728 Protected Resource Metadata of `resource`: the SDK's document plus how tokens are sent. */
export function protectedResourceMetadata(resource: URL, opts: PrmOptions) {
  const doc = buildOAuthProtectedResourceMetadata({
    oauthMetadata: { issuer: opts.issuer } as OAuthMetadata, // only the issuer is read
    resourceServerUrl: resource,
    scopesSupported: opts.scopesSupported.length ? opts.scopesSupported : undefined,
    resourceName: opts.resourceName,
  });
  return { ...doc, bearer_methods_supported: ['header'] };
}

/** The path-suffixed PRM URL advertised in challenges (`/.well-known/oauth-protected-resource/mcp`). */
export function prmUrlOf(resource: URL): string {
  return getOAuthProtectedResourceMetadataUrl(resource);
}

/**
 * Whether a request path is one of the PRM paths served: the root form, the path-suffixed form
 * for the MCP path, and for the resource's own path (they differ behind a path-rewriting proxy).
 */
export function isPrmPath(pathname: string, mcpPath: string, resource: URL): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
  const own = resource.pathname.replace(/\/$/, '');
  return path === PRM_PATH || path === PRM_PATH + mcpPath || path === PRM_PATH + own;
}

/** The document as HTTP: GET/HEAD, CORS-open (public metadata browsers' MCP clients read), cacheable for a while. */
export function prmResponse(request: Request, doc: object): Response {
  const cors = { 'access-control-allow-origin': '*' };
  if (request.method === 'OPTIONS')
    return new Response(null, { status: 204, headers: { ...cors, 'access-control-allow-methods': 'GET, HEAD, OPTIONS' } });
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return new Response(null, { status: 405, headers: { ...cors, allow: 'GET, HEAD, OPTIONS' } });
  const body = request.method === 'HEAD' ? null : JSON.stringify(doc);
  return new Response(body, {
    status: 200,
    headers: { ...cors, 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
  });
}
