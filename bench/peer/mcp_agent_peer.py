"""The second peer of `bench:peer`: lastmile-ai's mcp-agent 0.2.6 with `execution_engine: temporal`,
on the same Temporal dev server as ours. One workflow, `WaitAndEcho`, does the work of our demo's
`wait_and_echo`: a durable sleep of `seconds` (a Temporal timer), then a text back. An MCP client
starts it with the `workflows-run` tool and reads it with `workflows-get_status` (describe() in
Temporal), as mcp-agent serves every client; `WaitAndAsk` adds one input round through
`workflows-resume` (a signal).

    python mcp_agent_peer.py server --port P   the MCP endpoint (streamable HTTP at /mcp; starts no worker)
    python mcp_agent_peer.py worker            the Temporal worker that runs the workflows

TEMPORAL_ADDRESS, MCP_AGENT_TASK_QUEUE come from the environment. Re-executions are counted from
the histories (a timer started twice), as for ours.
"""

import asyncio
import os
import sys

from mcp_agent.app import MCPApp
from mcp_agent.config import Settings, TemporalSettings, LoggerSettings
from mcp_agent.executor.workflow import Workflow, WorkflowResult

ADDRESS = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
TASK_QUEUE = os.environ.get("MCP_AGENT_TASK_QUEUE", "mcp-agent-bench")

settings = Settings(
    execution_engine="temporal",
    temporal=TemporalSettings(host=ADDRESS, namespace="default", task_queue=TASK_QUEUE, max_concurrent_activities=100),
    logger=LoggerSettings(type="none", level="error"),
)
app = MCPApp(name="mcp_agent_bench", description="bench peer", settings=settings)


# One parameter per run(): mcp-agent's executor passes a run() of several parameters to Temporal
# as ONE list argument, so the first parameter would get the list and the others their defaults.
@app.workflow
class WaitAndEcho(Workflow[str]):
    """Waits `seconds` (a durable timer), then returns "x"."""

    @app.workflow_run
    async def run(self, seconds: float = 1) -> WorkflowResult[str]:
        await asyncio.sleep(seconds)  # a Temporal timer inside a workflow
        return WorkflowResult(value="x")


@app.workflow
class WaitAndAsk(Workflow[str]):
    """One input round: waits for the `resume` signal (workflows-resume), then returns its payload."""

    @app.workflow_run
    async def run(self, text: str = "x") -> WorkflowResult[str]:
        from temporalio import workflow

        # mcp-agent's dynamic signal handler puts every signal in the workflow's mailbox
        await workflow.wait_condition(lambda: self._signal_mailbox.version("resume") > 0)
        return WorkflowResult(value=f"{text}: {self._signal_mailbox.value('resume')}")


def main() -> None:
    role = sys.argv[1] if len(sys.argv) > 1 else "server"
    if role == "worker":
        from mcp_agent.executor.temporal import create_temporal_worker_for_app

        async def work() -> None:
            async with create_temporal_worker_for_app(app) as worker:
                print("mcp-agent worker running", flush=True)
                await worker.run()

        asyncio.run(work())
        return
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 8000
    from mcp_agent.server.app_server import create_mcp_server_for_app

    async def serve() -> None:
        async with app.run() as running:
            server = create_mcp_server_for_app(running, host="127.0.0.1", port=port, log_level="WARNING")
            print(f"mcp-agent server on http://127.0.0.1:{port}/mcp", flush=True)
            await server.run_streamable_http_async()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
