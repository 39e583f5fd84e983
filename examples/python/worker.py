"""A Temporal Python worker for the example workflows: `python worker.py` (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE)."""
import asyncio
import os
import signal

from temporalio.client import Client
from temporalio.worker import Worker

from activities import deploy, deprovision_step, provision_step, release_slot, reserve_slot, undeploy
from workflows import ApproveDeploymentWorkflow, GreetWorkflow, ProvisionWorkflow


async def main() -> None:
    address = os.environ.get("TEMPORAL_ADDRESS", "localhost:7233")
    task_queue = os.environ.get("TASK_QUEUE", "python-tools")
    client = await Client.connect(address, namespace=os.environ.get("TEMPORAL_NAMESPACE", "default"))
    worker = Worker(client, task_queue=task_queue, workflows=[GreetWorkflow, ApproveDeploymentWorkflow, ProvisionWorkflow],
                    activities=[reserve_slot, release_slot, deploy, undeploy, provision_step, deprovision_step])
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with worker:
        print(f"python worker polling task queue {task_queue} on {address}", flush=True)
        await stop.wait()


if __name__ == "__main__":  # the workflow sandbox re-imports modules: start only when run
    asyncio.run(main())
