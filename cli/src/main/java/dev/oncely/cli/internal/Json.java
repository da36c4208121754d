package dev.oncely.cli.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;

/** The one JSON mapper of the CLI; {@code --json} output is pretty-printed, one document. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  static void print(PrintWriter out, JsonNode node) {
    try {
      out.println(MAPPER.writeValueAsString(node));
    } catch (JsonProcessingException e) {
      throw CliException.failure("cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }
}
