package dev.oncely.server.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.server.EndpointPolicy;
import org.junit.jupiter.api.Test;

/** A route on the root path {@code /} matches the root path, and only it. */
class EndpointRoutesRootPathTest {
  private final EndpointPolicy root = EndpointPolicy.builder("root.create").build();
  private final EndpointRoutes routes = EndpointRoutes.builder().route("POST", "/", root).build();

  @Test
  void a_root_route_matches_the_root_path() {
    assertThat(routes.match("POST", "/")).isSameAs(root);
  }

  @Test
  void a_root_route_matches_no_other_path() {
    assertThat(routes.match("POST", "/payments")).isNull();
    assertThat(routes.match("POST", "//")).isNull();
    assertThat(routes.match("GET", "/")).isNull();
  }
}
