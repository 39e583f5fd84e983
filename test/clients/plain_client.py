"""Python clients that do NOT speak Tasks, against this server's task handles.

Usage: plain_client.py URL CLIENT SCENARIO
  CLIENT: mcp (the Python SDK's mcp.Client) | fastmcp (FastMCP's Client, without fastmcp_tasks)
  SCENARIO: respond | elicit | provision | cancel | progress (a progress callback / handler)
Prints one JSON object on stdout; exits non-zero with the error on stderr.
"""

import asyncio
import json
import sys

elicitations = []


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


def structured(result):
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent", None) or {}


def running(result):
    return structured(result).get("status") in ("working", "input_required")


async def follow(call, task_id):
    """task_wait until the task has ended; its last answer."""
    for _ in range(60):
        result = await call("task_wait", {"taskId": task_id})
        if not running(result):
            return result
    raise RuntimeError(f"task {task_id} did not end")


async def respond(call):
    handle = await call("approve_expense", {"amount": 12, "description": "python plain"})
    task_id = structured(handle)["taskId"]
    pending = list(structured(handle).get("inputRequests", {}))
    answer = {"approval": {"action": "accept", "content": {"approved": True, "comment": "from python"}}}
    result = await call("task_respond", {"taskId": task_id, "responses": answer})
    if running(result):
        result = await follow(call, task_id)
    return {"pending": pending, "text": text_of(result), "isError": bool(result.is_error if hasattr(result, "is_error") else result.isError)}


async def elicit(call):
    result = await call("approve_expense", {"amount": 13, "description": "python form"})
    if running(result):
        result = await follow(call, structured(result)["taskId"])
    return {"text": text_of(result), "elicitations": elicitations}


async def provision(call):
    handle = await call("provision_environment", {"name": "py-env", "steps": 3, "stepMs": 1500})
    first = structured(handle).get("status")
    result = await follow(call, structured(handle)["taskId"])
    return {"first": first, "text": text_of(result)}


async def cancel(call):
    handle = await call("provision_environment", {"name": "py-undo", "steps": 6, "stepMs": 1000})
    task_id = structured(handle)["taskId"]
    said = await call("task_cancel", {"taskId": task_id})
    final = await follow(call, task_id)
    return {"taskId": task_id, "said": text_of(said), "final": structured(final).get("status")}


async def progress(call_with_progress):
    """One call with a progress callback, past the server's bound for calls without progress."""
    seen = []

    async def on_progress(value, total, message):
        seen.append({"progress": value, "total": total, "message": message})

    result = await call_with_progress("export_report", {"rows": 5000, "msPerChunk": 1000}, on_progress)
    return {"text": text_of(result), "handle": "taskId" in structured(result), "seen": seen}


SCENARIOS = {"respond": respond, "elicit": elicit, "provision": provision, "cancel": cancel}


async def with_mcp(url, scenario):
    from mcp import Client, types

    async def on_elicit(context, params):
        elicitations.append({"message": params.message})
        return types.ElicitResult(action="accept", content={"approved": True})

    callback = on_elicit if scenario == "elicit" else None
    async with Client(url, elicitation_callback=callback, read_timeout_seconds=60) as client:
        if scenario == "progress":
            return await progress(lambda name, args, on: client.call_tool(name, args, progress_callback=on))
        return await SCENARIOS[scenario](lambda name, args: client.call_tool(name, args))


async def with_fastmcp(url, scenario):
    from fastmcp import Client

    async def on_elicit(message, response_type, params, context):
        elicitations.append({"message": message})
        return {"approved": True}

    handler = on_elicit if scenario == "elicit" else None
    async with Client(url, elicitation_handler=handler, timeout=60) as client:
        if scenario == "progress":
            return await progress(lambda name, args, on: client.call_tool(name, args, progress_handler=on, raise_on_error=False))
        return await SCENARIOS[scenario](lambda name, args: client.call_tool(name, args, raise_on_error=False))


async def main(url, kind, scenario):
    run = with_mcp if kind == "mcp" else with_fastmcp
    out = await asyncio.wait_for(run(url, scenario), 90)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
