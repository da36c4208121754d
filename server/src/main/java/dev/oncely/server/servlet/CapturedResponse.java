package dev.oncely.server.servlet;

import dev.oncely.server.ServerAnswer;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A response the handler writes into memory, so the filter decides what is stored and what is
 * sent: status, headers and body bytes are kept until {@link #toAnswer()}. Nothing reaches the
 * client while the handler runs ({@link #isCommitted()} stays false).
 */
final class CapturedResponse extends HttpServletResponseWrapper {
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private final Map<String, List<String>> headers = new LinkedHashMap<>();
  private int status = 200;
  private ServletOutputStream stream;
  private PrintWriter writer;
  private String contentType;
  private String encoding;

  CapturedResponse(HttpServletResponse response) {
    super(response);
  }

  @Override
  public void setStatus(int sc) {
    status = sc;
  }

  @Override
  public int getStatus() {
    return status;
  }

  @Override
  public void sendError(int sc) {
    status = sc;
  }

  @Override
  public void sendError(int sc, String msg) {
    status = sc;
    body.reset();
    if (msg != null) {
      setContentType("text/plain;charset=UTF-8");
      body.writeBytes(msg.getBytes(StandardCharsets.UTF_8));
    }
  }

  // Every overload is captured: the wrapper's defaults would send Servlet 6.1's
  // sendRedirect(location, status[, clearBuffer]) to the container's response, past the capture.
  @Override
  public void sendRedirect(String location) {
    sendRedirect(location, SC_FOUND, true);
  }

  @Override
  public void sendRedirect(String location, int sc) {
    sendRedirect(location, sc, true);
  }

  @Override
  public void sendRedirect(String location, boolean clearBuffer) {
    sendRedirect(location, SC_FOUND, clearBuffer);
  }

  @Override
  public void sendRedirect(String location, int sc, boolean clearBuffer) {
    if (clearBuffer) {
      flushBuffer();
      body.reset();
    }
    status = sc;
    setHeader("Location", location);
  }

  @Override
  public void setHeader(String name, String value) {
    if (name.equalsIgnoreCase("Content-Type")) {
      setContentType(value);
      return;
    }
    removeHeader(name);
    if (value != null) {
      headers.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
    }
  }

  @Override
  public void addHeader(String name, String value) {
    if (name.equalsIgnoreCase("Content-Type")) {
      setContentType(value);
      return;
    }
    if (value != null) {
      headers.computeIfAbsent(existingName(name), n -> new ArrayList<>()).add(value);
    }
  }

  @Override
  public void setIntHeader(String name, int value) {
    setHeader(name, Integer.toString(value));
  }

  @Override
  public void addIntHeader(String name, int value) {
    addHeader(name, Integer.toString(value));
  }

  @Override
  public void setDateHeader(String name, long date) {
    setHeader(name, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
        java.time.Instant.ofEpochMilli(date).atZone(java.time.ZoneOffset.UTC)));
  }

  @Override
  public void addDateHeader(String name, long date) {
    addHeader(name, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
        java.time.Instant.ofEpochMilli(date).atZone(java.time.ZoneOffset.UTC)));
  }

  @Override
  public boolean containsHeader(String name) {
    return name.equalsIgnoreCase("Content-Type") ? contentType != null
        : headers.keySet().stream().anyMatch(n -> n.equalsIgnoreCase(name));
  }

  @Override
  public String getHeader(String name) {
    if (name.equalsIgnoreCase("Content-Type")) {
      return getContentType();
    }
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
        return e.getValue().get(0);
      }
    }
    return null;
  }

  @Override
  public Collection<String> getHeaders(String name) {
    List<String> out = new ArrayList<>();
    headers.forEach((n, v) -> {
      if (n.equalsIgnoreCase(name)) {
        out.addAll(v);
      }
    });
    return out;
  }

  @Override
  public Collection<String> getHeaderNames() {
    List<String> names = new ArrayList<>(headers.keySet());
    if (contentType != null) {
      names.add("Content-Type");
    }
    return names;
  }

  @Override
  public void setContentType(String type) {
    contentType = type;
    if (type != null) {
      int i = type.toLowerCase(Locale.ROOT).indexOf("charset=");
      if (i >= 0) {
        encoding = type.substring(i + 8).trim();
      }
    }
  }

  @Override
  public String getContentType() {
    if (contentType == null) {
      return null;
    }
    return contentType.toLowerCase(Locale.ROOT).contains("charset=") || encoding == null
        || writer == null ? contentType : contentType + ";charset=" + encoding;
  }

  @Override
  public void setCharacterEncoding(String charset) {
    encoding = charset;
  }

  @Override
  public void setCharacterEncoding(Charset charset) {
    encoding = charset == null ? null : charset.name();
  }

  @Override
  public String getCharacterEncoding() {
    return encoding != null ? encoding : "UTF-8";
  }

  @Override
  public void setContentLength(int len) {}

  @Override
  public void setContentLengthLong(long len) {}

  @Override
  public ServletOutputStream getOutputStream() {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was called on this response");
    }
    if (stream == null) {
      stream = new ServletOutputStream() {
        @Override
        public void write(int b) {
          body.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          body.write(b, off, len);
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
          throw new UnsupportedOperationException("an idempotent endpoint writes synchronously");
        }
      };
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() {
    if (stream != null) {
      throw new IllegalStateException("getOutputStream() was called on this response");
    }
    if (writer == null) {
      if (encoding == null) {
        encoding = "UTF-8";
      }
      writer = new PrintWriter(new OutputStreamWriter(body, Charset.forName(encoding)));
    }
    return writer;
  }

  @Override
  public void flushBuffer() {
    if (writer != null) {
      writer.flush();
    }
  }

  @Override
  public void resetBuffer() {
    body.reset();
  }

  @Override
  public void reset() {
    body.reset();
    headers.clear();
    status = 200;
    contentType = null;
  }

  @Override
  public boolean isCommitted() {
    return false;
  }

  @Override
  public void setBufferSize(int size) {}

  /** What the handler wrote, as an answer. */
  ServerAnswer toAnswer() {
    if (writer != null) {
      writer.flush();
    }
    Map<String, List<String>> all = new LinkedHashMap<>(headers);
    String type = getContentType();
    if (type != null) {
      all.put("Content-Type", List.of(type));
    }
    return ServerAnswer.of(status, all, body.toByteArray());
  }

  private String existingName(String name) {
    for (String n : headers.keySet()) {
      if (n.equalsIgnoreCase(name)) {
        return n;
      }
    }
    return name;
  }

  private void removeHeader(String name) {
    headers.keySet().removeIf(n -> n.equalsIgnoreCase(name));
  }
}
