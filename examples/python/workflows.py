"""Workflows exposed as MCP task tools by tools.json: one knows nothing of MCP, two follow the contract."""
import asyncio
from datetime import timedelta
from functools import partial

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.workflow import ActivityCancellationType

with workflow.unsafe.imports_passed_through():
    from activities import deploy, deprovision_step, provision_step, release_slot, reserve_slot
    from mcp_tasks import McpTask, Undo

STEP = {"start_to_close_timeout": timedelta(seconds=30)}
# A step that heartbeats: a cancel reaches it, and the workflow waits for it to settle so its
# undo never runs before it.
WATCHED = {**STEP, "heartbeat_timeout": timedelta(seconds=1), "cancellation_type": ActivityCancellationType.WAIT_CANCELLATION_COMPLETED}


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
    """Follows the contract: statusMessage, a form elicitation for approval (timed, if asked),
    a reserved slot released if the task is cancelled, fails or is not approved; the deploy is a
    step too (undeployed if the task is cancelled while it watches the rollout)."""

    @workflow.run
    async def run(self, args: dict) -> dict:
        task = McpTask()
        return await task.run(lambda: self.deploy(task, args["service"], args["version"], args.get("approvalTimeoutSeconds"), args.get("watchSeconds", 0)))

    async def deploy(self, task: McpTask, service: str, version: str, approval_timeout: float | None, watch_seconds: float) -> dict:
        task_id = workflow.info().workflow_id
        task.set_status_message(f"reserving a deployment slot for {service}")
        reservation = await task.step(partial(workflow.execute_activity, reserve_slot, args=[task_id, service], **STEP),
                                      Undo("release_slot", [task_id, service], step=f"reserve a slot for {service}"))
        task.set_status_message(f"waiting for approval to deploy {service} {version}")
        answer = await task.elicit("approval", f"Deploy {service} {version}?", APPROVAL_SCHEMA, timeout=approval_timeout)
        if answer.get("action") != "accept" or not (answer.get("content") or {}).get("approved"):
            await task.compensate()  # nothing to deploy: give the slot back now
            why = "rejected" if answer.get("action") == "accept" else f"answered {answer.get('action')}"
            return {"content": [{"type": "text", "text": f"Deployment of {service} {version} was not approved ({why})"}], "isError": True}
        task.set_status_message(f"deploying {service} {version}")
        await task.step(partial(workflow.execute_activity, deploy, args=[task_id, service, version, watch_seconds], **WATCHED),
                        Undo("undeploy", [task_id, service, version], step=f"deploy {service} {version}"))
        return {"service": service, "version": version, "deployed": True, "reservation": reservation,
                "comment": (answer.get("content") or {}).get("comment", "")}


# A cancel reaches a step through its heartbeats; the workflow waits for the step to settle so
# its undo never runs before it. Three attempts: a worker that dies mid-step (its heartbeats stop)
# hands the step to another; the step's own failure is non-retryable and fails the task.
PROVISION = {
    "start_to_close_timeout": timedelta(minutes=10),
    "heartbeat_timeout": timedelta(seconds=1),
    "cancellation_type": ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    "retry_policy": RetryPolicy(maximum_attempts=3),
}


@workflow.defn(name="ProvisionWorkflow")
class ProvisionWorkflow:
    """Provisions an environment in steps, each with its undo: a cancel or a failure undoes every
    step done or in flight, newest first, also those of earlier runs. `failStep` and `refuseUndo`
    show what failures do; `stepsPerRun` continues as new after that many steps."""

    @workflow.run
    async def run(self, args: dict, carry: dict | None = None) -> dict:
        task = McpTask(carry)  # the server starts it with `args` alone; a continued run gets the carry too
        return await task.run(lambda: self.provision(task, args))

    async def provision(self, task: McpTask, args: dict) -> dict:
        task_id = workflow.info().workflow_id
        name, steps, seconds = args["name"], args.get("steps", 3), args.get("stepSeconds", 1.0)
        done, per_run = args.get("done", 0), args.get("stepsPerRun")  # done: the steps of earlier runs
        for step in range(done + 1, steps + 1):
            if per_run and step > done + per_run:
                task.continue_as_new({**args, "done": step - 1})  # raises: the undos go along in the carry
            task.set_status_message(f"step {step}/{steps}: provisioning {name}")
            forward = partial(workflow.execute_activity, provision_step, args=[task_id, step, seconds, step == args.get("failStep")], **PROVISION)
            await task.step(forward, Undo("deprovision_step", [task_id, step, step in args.get("refuseUndo", [])], step=f"step {step} of {name}"))
        return {"name": name, "steps": steps}
