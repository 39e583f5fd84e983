"""Two workflows exposed as MCP task tools by tools.json: one knows nothing of MCP, one follows the contract."""
import asyncio
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import deploy, release_slot, reserve_slot
    from mcp_tasks import McpTask

STEP = {"start_to_close_timeout": timedelta(seconds=30)}


@workflow.defn(name="GreetWorkflow")
class GreetWorkflow:
    """A plain Temporal workflow: its string result becomes the tool's text."""

    @workflow.run
    async def run(self, args: dict) -> str:
        if args.get("seconds"):
            await asyncio.sleep(args["seconds"])
        return f"Hello, {args['name']}!"


APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "comment": {"type": "string"}},
    "required": ["approved"],
}


@workflow.defn(name="ApproveDeploymentWorkflow")
class ApproveDeploymentWorkflow:
    """Follows the contract: statusMessage, a form elicitation for approval, compensation on cancel."""

    @workflow.run
    async def run(self, args: dict) -> dict:
        task = McpTask()
        return await task.run(lambda: self.deploy(task, args["service"], args["version"]))

    async def deploy(self, task: McpTask, service: str, version: str) -> dict:
        task_id = workflow.info().workflow_id
        task.set_status_message(f"reserving a deployment slot for {service}")
        reservation = await workflow.execute_activity(reserve_slot, args=[task_id, service], **STEP)
        try:
            task.set_status_message(f"waiting for approval to deploy {service} {version}")
            answer = await task.elicit("approval", f"Deploy {service} {version}?", APPROVAL_SCHEMA)
            if answer.get("action") != "accept" or not (answer.get("content") or {}).get("approved"):
                await workflow.execute_activity(release_slot, args=[task_id, reservation], **STEP)
                return {"content": [{"type": "text", "text": f"Deployment of {service} {version} was not approved"}], "isError": True}
            task.set_status_message(f"deploying {service} {version}")
            await workflow.execute_activity(deploy, args=[task_id, service, version], **STEP)
            return {"service": service, "version": version, "deployed": True, "reservation": reservation,
                    "comment": (answer.get("content") or {}).get("comment", "")}
        except asyncio.CancelledError:
            # tasks/cancel is Temporal's cancellation: undo what was done, then end cancelled
            task.set_status_message(f"cancelled: releasing {reservation}")
            await workflow.execute_activity(release_slot, args=[task_id, reservation], **STEP)
            raise
