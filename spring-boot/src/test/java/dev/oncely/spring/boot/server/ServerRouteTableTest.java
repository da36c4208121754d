package dev.oncely.spring.boot.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.servlet.EndpointRoutes;
import dev.oncely.spring.boot.OncelyPropertyException;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/**
 * The route table read from Spring MVC's handler mappings in a real context: each {@link
 * IdempotentEndpoint} method's methods and patterns become routes with the policy its attributes
 * say, ordered so that the table sends each request where Spring MVC does; mappings the table
 * cannot follow fail the start naming the handler method.
 */
class ServerRouteTableTest {
  private static WebApplicationContextRunner runner() {
    return new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, OncelyServerAutoConfiguration.class))
        .withPropertyValues("oncely.server.enabled=true", "oncely.server.store.engine=memory");
  }

  private static void withTable(WebApplicationContextRunner runner, Consumer<EndpointRoutes> test) {
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      test.accept(context.getBean(EndpointRouteTable.class).routes());
    });
  }

  private static String operation(EndpointRoutes routes, String method, String path) {
    EndpointPolicy policy = routes.match(method, path);
    return policy == null ? null : policy.operation();
  }

  /** The start failed with a route refusal whose report contains {@code expected}. */
  private static void refused(AssertableWebApplicationContext context, String expected) {
    assertThat(context).hasFailed();
    FailureAnalysis analysis = new OncelyRouteFailureAnalyzer().analyze(
        context.getStartupFailure());
    assertThat(analysis).as("analyzed " + context.getStartupFailure()).isNotNull();
    assertThat(analysis.getDescription()).startsWith("Oncely could not route the idempotent"
        + " endpoints: @IdempotentEndpoint on ").contains(expected);
    assertThat(analysis.getAction()).startsWith("Change @IdempotentEndpoint on ");
  }

  @RestController
  static class Payments {
    @PostMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create")
    String create() {
      return "created";
    }

    @RequestMapping(path = "/payments/{id}/capture",
        method = {RequestMethod.POST, RequestMethod.PUT})
    @IdempotentEndpoint(operation = "payments.capture", inProgressWait = "${capture.wait:2s}",
        retention = "72h", lease = "5s", rerunSafe = true, maxBodyBytes = 4096,
        volatileFields = "sentAt", replayedHeaders = {"Content-Type", "X-Request-Id"},
        keyRequired = false)
    String capture(@PathVariable String id) {
      return "captured";
    }

    @GetMapping("/payments/{id}")
    String read(@PathVariable String id) {
      return "read";
    }

    @PostMapping("/payments/{id}/refunds")
    String refund(@PathVariable String id) {
      return "refund, not idempotent";
    }
  }

  @Test
  void each_annotated_method_routes_its_methods_and_patterns_and_nothing_else() {
    withTable(runner().withUserConfiguration(Payments.class), routes -> {
      assertThat(operation(routes, "POST", "/payments")).isEqualTo("payments.create");
      assertThat(operation(routes, "POST", "/payments/p-1/capture")).isEqualTo("payments.capture");
      assertThat(operation(routes, "PUT", "/payments/p-1/capture")).isEqualTo("payments.capture");
      assertThat(operation(routes, "GET", "/payments/p-1")).isNull();
      assertThat(operation(routes, "POST", "/payments/p-1/refunds")).isNull();
      assertThat(operation(routes, "GET", "/payments")).isNull();
      assertThat(routes.policies()).extracting(EndpointPolicy::operation)
          .containsOnly("payments.create", "payments.capture");
    });
  }

  @Test
  void the_attributes_are_the_policy_and_the_defaults_are_the_policys_own() {
    withTable(runner().withUserConfiguration(Payments.class), routes -> {
      EndpointPolicy capture = routes.byOperation("payments.capture");
      assertThat(capture.inProgressWait()).isEqualTo(Duration.ofSeconds(2));
      assertThat(capture.retention()).isEqualTo(Duration.ofHours(72));
      assertThat(capture.lease()).isEqualTo(Duration.ofSeconds(5));
      assertThat(capture.rerunSafe()).isTrue();
      assertThat(capture.keyRequired()).isFalse();
      assertThat(capture.maxBodyBytes()).isEqualTo(4096);
      assertThat(capture.volatileFields()).containsExactly("sentAt");
      assertThat(capture.replayedHeaders()).containsExactlyInAnyOrder("content-type",
          "x-request-id");

      EndpointPolicy defaults = EndpointPolicy.builder("payments.create").build();
      EndpointPolicy create = routes.byOperation("payments.create");
      assertThat(create.keyRequired()).isEqualTo(defaults.keyRequired());
      assertThat(create.inProgressWait()).isEqualTo(defaults.inProgressWait());
      assertThat(create.retention()).isEqualTo(defaults.retention());
      assertThat(create.lease()).isEqualTo(defaults.lease());
      assertThat(create.rerunSafe()).isEqualTo(defaults.rerunSafe());
      assertThat(create.maxBodyBytes()).isEqualTo(defaults.maxBodyBytes());
      assertThat(create.volatileFields()).isEqualTo(defaults.volatileFields());
      assertThat(create.replayedHeaders()).isEqualTo(EndpointPolicy.DEFAULT_REPLAYED_HEADERS);
    });
    withTable(runner().withUserConfiguration(Payments.class)
        .withPropertyValues("capture.wait=500ms"), routes ->
        assertThat(routes.byOperation("payments.capture").inProgressWait())
            .isEqualTo(Duration.ofMillis(500)));
  }

  @RestController
  static class Batches {
    @PostMapping("/orders/{id}")
    @IdempotentEndpoint(operation = "orders.update")
    String update(@PathVariable String id) {
      return "updated";
    }

    @PostMapping("/orders/batch")
    @IdempotentEndpoint(operation = "orders.batch")
    String batch() {
      return "batch";
    }

    @PostMapping("/orders/{id}/lines/**")
    @IdempotentEndpoint(operation = "orders.lines")
    String lines(@PathVariable String id) {
      return "lines";
    }
  }

  @Test
  void a_more_specific_route_comes_first_as_spring_prefers_it() {
    withTable(runner().withUserConfiguration(Batches.class), routes -> {
      assertThat(operation(routes, "POST", "/orders/batch")).isEqualTo("orders.batch");
      assertThat(operation(routes, "POST", "/orders/o-1")).isEqualTo("orders.update");
      assertThat(operation(routes, "POST", "/orders/o-1/lines")).isEqualTo("orders.lines");
      assertThat(operation(routes, "POST", "/orders/o-1/lines/3/qty")).isEqualTo("orders.lines");
    });
  }

  @RestController
  static class SpecificBesideIdempotent {
    @PostMapping("/payments/{id}")
    @IdempotentEndpoint(operation = "payments.update")
    String update(@PathVariable String id) {
      return "updated";
    }

    @PostMapping("/payments/special")
    String special() {
      return "special";
    }
  }

  @Test
  void a_route_that_would_catch_another_handlers_more_specific_path_fails_the_start() {
    runner().withUserConfiguration(SpecificBesideIdempotent.class).run(context ->
        refused(context, "@IdempotentEndpoint on SpecificBesideIdempotent#update routes POST"
            + " /payments/{v0} as payments.update, which also matches requests Spring MVC sends"
            + " to SpecificBesideIdempotent#special (POST /payments/special)"));
  }

  @RestController
  static class IdempotentBesideGeneral {
    @PostMapping("/payments/new")
    @IdempotentEndpoint(operation = "payments.create")
    String create() {
      return "created";
    }

    @PostMapping("/payments/{id}")
    String update(@PathVariable String id) {
      return "updated";
    }

    @RequestMapping("/payments/new")
    String anyOtherMethod() {
      return "any";
    }
  }

  @Test
  void a_route_more_specific_than_another_handler_or_with_the_only_named_method_is_kept() {
    withTable(runner().withUserConfiguration(IdempotentBesideGeneral.class), routes -> {
      assertThat(operation(routes, "POST", "/payments/new")).isEqualTo("payments.create");
      assertThat(operation(routes, "POST", "/payments/p-1")).isNull();
      assertThat(operation(routes, "PUT", "/payments/new")).isNull();
    });
  }

  @RestController
  static class SplitByContentType {
    @PostMapping(path = "/payments", consumes = MediaType.APPLICATION_JSON_VALUE)
    @IdempotentEndpoint(operation = "payments.create")
    String json() {
      return "json";
    }

    @PostMapping(path = "/payments", consumes = MediaType.APPLICATION_FORM_URLENCODED_VALUE)
    String form() {
      return "form";
    }
  }

  @Test
  void a_route_whose_requests_spring_splits_by_another_condition_fails_the_start() {
    runner().withUserConfiguration(SplitByContentType.class).run(context ->
        refused(context, "which also matches requests Spring MVC sends to"
            + " SplitByContentType#form (POST /payments)"));
  }

  @RestController
  static class RegexVariable {
    @PostMapping("/payments/{id:\\d+}")
    @IdempotentEndpoint(operation = "payments.update")
    String update(@PathVariable String id) {
      return "updated";
    }
  }

  @RestController
  static class WildcardInSegment {
    @PostMapping("/files/*.json")
    @IdempotentEndpoint(operation = "files.create")
    String create() {
      return "created";
    }
  }

  @RestController
  static class EveryMethod {
    @RequestMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create")
    String create() {
      return "created";
    }
  }

  @Test
  void mappings_the_table_cannot_follow_fail_the_start_naming_the_method() {
    runner().withUserConfiguration(RegexVariable.class).run(context -> refused(context,
        "RegexVariable#update is mapped to /payments/{id:\\d+}, which the route table cannot"
            + " match as Spring MVC does: the variable {id:\\d+} has a regular expression"));
    runner().withUserConfiguration(WildcardInSegment.class).run(context -> refused(context,
        "WildcardInSegment#create is mapped to /files/*.json, which the route table cannot"
            + " match as Spring MVC does: the segment *.json mixes literal text"));
    runner().withUserConfiguration(EveryMethod.class).run(context -> refused(context,
        "EveryMethod#create is mapped to every HTTP method; an idempotent endpoint names its"
            + " method"));
  }

  @RestController
  static class SharedOperation {
    @PostMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create", lease = "10s")
    String create() {
      return "created";
    }

    @PostMapping("/v2/payments")
    @IdempotentEndpoint(operation = "payments.create", lease = "10s")
    String createV2() {
      return "created";
    }
  }

  @RestController
  static class ConflictingOperation {
    @PostMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create", lease = "10s")
    String create() {
      return "created";
    }

    @PostMapping("/v2/payments")
    @IdempotentEndpoint(operation = "payments.create", lease = "20s")
    String createV2() {
      return "created";
    }
  }

  @Test
  void methods_may_share_an_operation_only_with_the_same_attributes() {
    withTable(runner().withUserConfiguration(SharedOperation.class), routes ->
        assertThat(routes.match("POST", "/v2/payments"))
            .isSameAs(routes.match("POST", "/payments")));
    runner().withUserConfiguration(ConflictingOperation.class).run(context -> refused(context,
        "names operation payments.create, which @IdempotentEndpoint on ConflictingOperation#"));
  }

  @RestController
  static class BadAttributes {
    @PostMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create", inProgressWait = "2 minutes")
    String create() {
      return "created";
    }
  }

  @RestController
  static class RefusedAttributes {
    @PostMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create", inProgressWait = "2m")
    String create() {
      return "created";
    }
  }

  @Test
  void a_refused_attribute_fails_the_start_naming_the_method_and_the_attribute() {
    runner().withUserConfiguration(BadAttributes.class).run(context -> refused(context,
        "BadAttributes#create has inProgressWait = \"2 minutes\", which is not a duration"));
    runner().withUserConfiguration(RefusedAttributes.class).run(context -> refused(context,
        "RefusedAttributes#create is refused: inProgressWait must be 0..60 s, was PT2M"));
  }

  @Test
  void under_a_servlet_path_the_routes_carry_it() {
    withTable(runner().withUserConfiguration(Payments.class)
        .withPropertyValues("spring.mvc.servlet.path=/api"), routes -> {
          assertThat(operation(routes, "POST", "/api/payments")).isEqualTo("payments.create");
          assertThat(operation(routes, "POST", "/payments")).isNull();
        });
  }

  @Test
  void property_routes_join_the_annotated_ones_and_may_not_redefine_an_operation() {
    withTable(runner().withUserConfiguration(Payments.class).withPropertyValues(
        "oncely.server.endpoints[orders.create].path=/orders",
        "oncely.server.endpoints[orders.create].lease=10s"), routes -> {
          assertThat(operation(routes, "POST", "/orders")).isEqualTo("orders.create");
          assertThat(routes.byOperation("orders.create").lease())
              .isEqualTo(Duration.ofSeconds(10));
          assertThat(operation(routes, "POST", "/payments")).isEqualTo("payments.create");
        });
    runner().withUserConfiguration(Payments.class)
        .withPropertyValues("oncely.server.endpoints[payments.create].path=/v0/payments")
        .run(context -> refused(context, "Payments#create routes operation payments.create,"
            + " which oncely.server.endpoints[payments.create] routes too with other settings"));
    runner().withPropertyValues("oncely.server.endpoints[orders.create].path=/orders/{id}",
        "oncely.server.endpoints[orders.update].path=/orders/{order}").run(context -> {
          assertThat(context).hasFailed().getFailure()
              .isInstanceOfSatisfying(OncelyPropertyException.class, e -> {
                assertThat(e.property()).matches("oncely\\.server\\.endpoints\\[orders\\."
                    + "(create|update)]\\.path");
                assertThat(e).hasMessageContaining("routes POST /orders/{v0} as orders.")
                    .hasMessageContaining("both match some paths and neither is the more"
                        + " specific, so the table cannot tell which operation a request is");
              });
        });
  }

  @Test
  void an_endpoint_routes_bean_of_the_apps_replaces_both_tables() {
    EndpointRoutes own = EndpointRoutes.builder()
        .route("PATCH", "/things", EndpointPolicy.builder("things.patch").build()).build();
    withTable(runner().withUserConfiguration(Payments.class)
        .withBean(EndpointRoutes.class, () -> own), routes -> assertThat(routes).isSameAs(own));
  }
}
