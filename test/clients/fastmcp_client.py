"""FastMCP 4.1.4 + fastmcp-tasks 4.1.4 as a real client of this server.

Usage: fastmcp_client.py URL SCENARIO   (SCENARIO: echo | approve | cancel)
Prints one JSON object on stdout; exits non-zero with the error on stderr.
"""

import asyncio
import json
import sys

import fastmcp_tasks  # noqa: F401  (registers the tasks client extension on every Client)
from fastmcp import Client
from fastmcp_tasks import call_tool_task

elicitations = []


async def answer(message, response_type, params, context):
    elicitations.append({"message": message, "schema": params.requested_schema})
    return {"approved": True, "comment": "ok from fastmcp"}


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def echo(client):
    result = await client.call_tool("wait_and_echo", {"text": "hello fastmcp", "seconds": 1})
    return {"text": text_of(result), "isError": result.is_error}


async def approve(client):
    result = await client.call_tool(
        "approve_expense", {"amount": 42.5, "description": "team lunch"}, raise_on_error=False
    )
    return {
        "text": text_of(result),
        "isError": result.is_error,
        "structured": result.structured_content,
        "elicitations": elicitations,
    }


async def cancel(client):
    task = await call_tool_task(client, "provision_environment", {"name": "fastmcp-env", "steps": 5, "stepMs": 2000})
    first = await task.status()
    await task.cancel()
    final = await task.wait(timeout=60)
    return {"taskId": task.task_id, "first": first.status, "final": final.status}


SCENARIOS = {"echo": echo, "approve": approve, "cancel": cancel}


async def main(url, scenario):
    async with Client(url, elicitation_handler=answer, timeout=60) as client:
        out = await asyncio.wait_for(SCENARIOS[scenario](client), 90)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
