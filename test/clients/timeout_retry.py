"""Clients with short timeouts calling a tool that takes longer, then retrying once.

Usage: timeout_retry.py URL CLIENT TEXT SECONDS
  CLIENT: agents (the OpenAI Agents SDK's MCPServerStreamableHttp at its default 5 s session
          timeout, no model: server.call_tool directly) | mcp (the Python SDK's ClientSession at a
          3 s read timeout)
Prints one JSON object: the first attempt's error and the retry's text.
"""

import asyncio
import json
import sys


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def with_agents(url, args):
    from agents.mcp import MCPServerStreamableHttp

    # the default client_session_timeout_seconds (5 s), as an agent gets it
    async with MCPServerStreamableHttp({"url": url}, name="short-timeout") as server:
        try:
            first = await server.call_tool("wait_and_echo", args)
            return {"firstError": None, "firstText": text_of(first)}
        except Exception as err:  # the SDK's timeout: what an agent sees, then retries
            first_error = f"{type(err).__name__}: {err}"
        retry = await server.call_tool("wait_and_echo", args)
        return {"firstError": first_error, "text": text_of(retry)}


async def with_mcp(url, args):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, read_timeout_seconds=3) as session:
            await session.initialize()
            try:
                first = await session.call_tool("wait_and_echo", args)
                return {"firstError": None, "firstText": text_of(first)}
            except Exception as err:
                first_error = f"{type(err).__name__}: {err}"
            retry = await session.call_tool("wait_and_echo", args, read_timeout_seconds=30)
            return {"firstError": first_error, "text": text_of(retry)}


async def main():
    url, client, text, seconds = sys.argv[1:5]
    args = {"text": text, "seconds": int(seconds)}
    out = await (with_agents if client == "agents" else with_mcp)(url, args)
    print(json.dumps(out))


asyncio.run(main())
