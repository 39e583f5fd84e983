package mcptasks.example;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;

/** The Java worker of the example tools (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, LEDGER_FILE); stops on SIGTERM. */
public final class Worker {
  private Worker() {}

  public static void main(String[] argv) {
    String address = System.getenv().getOrDefault("TEMPORAL_ADDRESS", "localhost:7233");
    String queue = System.getenv().getOrDefault("TASK_QUEUE", "java-tools");
    WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
    WorkflowClient client = WorkflowClient.newInstance(service,
        WorkflowClientOptions.newBuilder().setNamespace(System.getenv().getOrDefault("TEMPORAL_NAMESPACE", "default")).build());
    WorkerFactory factory = WorkerFactory.newInstance(client);
    io.temporal.worker.Worker worker = factory.newWorker(queue);
    worker.registerWorkflowImplementationTypes(ApproveDeploymentWorkflowImpl.class, ProvisionWorkflowImpl.class);
    worker.registerActivitiesImplementations(new ExampleActivitiesImpl());
    factory.start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      factory.shutdown();
      service.shutdown();
    }));
    System.out.println("java worker polling task queue " + queue + " on " + address);
    System.out.flush();
  }
}
