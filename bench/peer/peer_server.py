"""The peer of the comparison: FastMCP 4.1.4 + fastmcp-tasks 4.1.4 (Docket on Redis) serving
a `wait_and_echo {text, seconds}` task tool equivalent to the demo's.

    python peer_server.py server --port P   the MCP endpoint at http://127.0.0.1:P/mcp (runs no tasks)
    python peer_server.py worker            a separate Docket worker that runs the tasks

The Redis URL comes from FASTMCP_DOCKET_URL. Every start of the tool body appends its message to
the file named by PEER_STARTS_FILE (when set), so the bench can count re-executions.
"""

import asyncio
import os
import sys
from datetime import timedelta

from fastmcp import FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

mcp = FastMCP("peer-bench")
mcp.add_extension(TasksExtension())

STARTS_FILE = os.environ.get("PEER_STARTS_FILE")


# optional like ours; the same advised poll interval as our server (1 s)
@mcp.tool(task=TaskConfig(mode="optional", poll_interval=timedelta(seconds=1)))
async def wait_and_echo(text: str, seconds: float) -> str:
    """Waits `seconds`, then returns `text`."""
    if STARTS_FILE:
        with open(STARTS_FILE, "a") as f:  # one short line: appends are atomic
            f.write(f"{text}\n")
    await asyncio.sleep(seconds)
    return text


def main() -> None:
    role = sys.argv[1] if len(sys.argv) > 1 else "server"
    if role == "worker":
        # what `python -m fastmcp_tasks.worker_cli worker` does: the server's lifespan runs a worker
        async def camp() -> None:
            async with mcp._lifespan_manager():
                print("peer worker running", flush=True)
                await asyncio.Event().wait()

        asyncio.run(camp())
        return
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
    if os.environ.get("PEER_SERVER_RUNS_TASKS") != "1":
        # Like our `serve` (no worker in it): the server's own Docket worker never claims a task,
        # so the separate worker process runs them all and a SIGKILL of it hits every task.
        import docket

        async def idle(self) -> None:
            await asyncio.Event().wait()

        docket.Worker.run_forever = idle
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning", stateless_http=True)


if __name__ == "__main__":
    main()
