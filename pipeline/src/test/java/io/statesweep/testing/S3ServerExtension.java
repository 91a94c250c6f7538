package io.statesweep.testing;

import io.statesweep.local.LocalS3Server;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link LocalS3Server} per test JVM, on first use, and injects it into test constructors,
 * {@code @BeforeAll}/{@code @BeforeEach} methods and test methods that take a {@code LocalS3Server}.
 *
 * <p>The server lives in the root extension context's store, so JUnit closes it once at the end of the
 * whole run, failed tests included (and the server's own shutdown hook and watchdog cover a JVM that
 * dies). Starting it also sets the {@code aws.*} system properties, so clients built from
 * {@link LocalS3Server#s3Settings()} with the SDK's default credentials find it, as the product does.
 *
 * <p>Usage: {@code @ExtendWith(S3ServerExtension.class)}; create a bucket per test class with
 * {@link LocalS3Server#createBucket(String)}, since every class shares the server.
 */
public final class S3ServerExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(S3ServerExtension.class);
  private static final String KEY = "local-s3-server";

  @Override
  public void beforeAll(ExtensionContext context) {
    server(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == LocalS3Server.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return server(extensionContext);
  }

  /** The shared server, started on first call. */
  public static LocalS3Server server(ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(KEY, key -> new ServerResource(LocalS3Server.start()), ServerResource.class)
        .server();
  }

  /**
   * Closes the server when the root context closes. It is both {@code AutoCloseable} (what JUnit 5.13+
   * closes; it then skips the other) and the older {@code CloseableResource}; close is idempotent anyway.
   */
  @SuppressWarnings("deprecation")
  private static final class ServerResource implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    private final LocalS3Server server;

    ServerResource(LocalS3Server server) {
      this.server = server.setCredentialSystemProperties();
    }

    LocalS3Server server() {
      return server;
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
