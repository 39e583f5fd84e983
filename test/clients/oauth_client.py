"""The Python MCP SDK's own OAuth client (mcp.client.auth.OAuthClientProvider), headless.

Usage: oauth_client.py URL USER
From the server's 401 the SDK discovers the protected resource metadata and the authorization
server, registers, and sends the "user agent" to the authorization URL: here that means
following the provider's redirects with httpx2 (its cookie jar; the test provider logs in the
`login_hint` and consents on its own) up to the redirect back, whose code the SDK exchanges.
Prints one JSON object: the tools listed, the result text of wait_and_echo, the token's claims.
"""

import asyncio
import base64
import json
import sys
from urllib.parse import parse_qs, urljoin, urlparse

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

REDIRECT = "http://127.0.0.1:1/callback"  # never reached: the redirect back is read, not followed


class MemoryStorage:
    def __init__(self):
        self.tokens = None
        self.info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.info

    async def set_client_info(self, info):
        self.info = info


async def main(url, user):
    back = {}

    async def redirect_handler(authorization_url):
        target = f"{authorization_url}&login_hint={user}"
        async with httpx2.AsyncClient(follow_redirects=False) as browser:
            for _ in range(10):
                response = await browser.get(target)
                location = response.headers.get("location")
                if not location:
                    raise RuntimeError(f"authorization stopped at {target}: HTTP {response.status_code}")
                target = urljoin(target, location)
                if target.startswith(REDIRECT):
                    query = parse_qs(urlparse(target).query)
                    if "error" in query:
                        raise RuntimeError(f"authorization refused: {query}")
                    back.update({k: v[0] for k, v in query.items()})
                    return
        raise RuntimeError("too many redirects")

    async def callback_handler():
        return AuthorizationCodeResult(code=back["code"], state=back.get("state"), iss=back.get("iss"))

    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="python headless",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with Client(streamable_http_client(url, http_client=create_mcp_http_client(auth=provider))) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("wait_and_echo", {"text": f"from python for {user}", "seconds": 0})
    token = storage.tokens.access_token
    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    text = "".join(getattr(block, "text", "") for block in result.content)
    print(json.dumps({"tools": tools, "text": text, "claims": claims}))


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2]), 90))
