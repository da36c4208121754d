package dev.oncely.cli.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.server.Receipt;
import dev.oncely.server.internal.ReceiptRecords;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * How an operator names one receipt, and what each form finds:
 * <ul>
 *   <li>{@code --key} with {@code --scope} and {@code --operation}: exactly that receipt;
 *   <li>{@code --status-token} (the last segment of the status URL a {@code 202} named, or that
 *       URL or its path, which also names the operation): with {@code --scope} the receipt it
 *       names there, else the receipt carrying it in any scope;
 *   <li>its short key hash as {@code receipts list} prints it (or a unique prefix of at least 4
 *       digits): the unfinished receipts first, then the finished ones.
 * </ul>
 * A client's intent or an inbox message is never taken for a receipt: it is refused, naming the
 * command that reads it.
 */
public final class ReceiptRef {
  @Parameters(index = "0", arity = "0..1", paramLabel = "KEY_HASH",
      description = "The short key hash from `receipts list` (k#0a1b2c...), or a unique prefix of"
          + " it: unfinished receipts first, then finished ones.")
  String hash;

  @Option(names = "--status-token", paramLabel = "TOKEN",
      description = "The token of the receipt's status URL, or that URL (.../<operation>/<token>)"
          + " as a client received it in a 202's Location.")
  String statusToken;

  @Option(names = "--key", paramLabel = "KEY",
      description = "The full idempotency key (needs --scope and --operation).")
  String key;

  @Option(names = "--scope", paramLabel = "SCOPE",
      description = "The receipt's scope (the tenant or principal); needs --operation.")
  String scope;

  @Option(names = "--operation", paramLabel = "OP", description = "The receipt's operation.")
  String operation;

  /**
   * Finds the one receipt this reference names.
   *
   * @throws CliException when the reference is malformed, matches nothing or several, or names a
   *     client's intent
   */
  Receipt find(IntentStore store) {
    int given = (hash != null ? 1 : 0) + (statusToken != null ? 1 : 0) + (key != null ? 1 : 0);
    if (given != 1) {
      throw CliException.usage("name exactly one receipt: a KEY_HASH, --status-token or --key");
    }
    if (scope != null && operation == null && statusToken == null) {
      throw CliException.usage("--scope needs --operation");
    }
    if (key != null) {
      if (scope == null || operation == null) {
        throw CliException.usage("--key needs --scope and --operation");
      }
      IntentId id = RecordSearch.id(scope, operation, key);
      return receipt(store.get(id).orElseThrow(() -> CliException.failure("no receipt " + id)));
    }
    if (statusToken != null) {
      return byStatusToken(store);
    }
    String digits = RecordSearch.hashDigits(hash);
    Predicate<IntentRecord> named = r -> ReceiptRecords.isReceipt(r)
        && r.id().safeKey().startsWith("k#" + digits) && narrowed(r);
    return receipt(RecordSearch.unique(store, named, "k#" + digits, "receipt",
        "name a finished one with --status-token or --key plus --scope and --operation"));
  }

  private Receipt byStatusToken(IntentStore store) {
    String token = statusToken.trim();
    String op = operation;
    int slash = token.lastIndexOf('/');
    if (slash >= 0) {
      // A status URL or its path: <status path>/<operation>/<token>.
      String path = token.substring(0, slash);
      token = token.substring(slash + 1);
      String named = URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1),
          StandardCharsets.UTF_8);
      if (op != null && !op.equals(named)) {
        throw CliException.usage("the status URL names operation " + named + ", --operation says "
            + op);
      }
      op = named;
    }
    if (token.isEmpty() || !token.chars().allMatch(ReceiptRef::base64Url)) {
      throw CliException.usage("a status token is the base64url last segment of a status URL");
    }
    if (scope != null && op == null) {
      throw CliException.usage("--scope with a bare --status-token needs --operation");
    }
    String wanted = token;
    String operationNamed = op;
    if (scope != null) {
      return receipt(store.findByBusinessId(scope, op, wanted).orElseThrow(() ->
          CliException.failure("no receipt with that status token in " + scope + "/"
              + operationNamed)));
    }
    Predicate<IntentRecord> named = r -> ReceiptRecords.isReceipt(r)
        && wanted.equals(r.businessId())
        && (operationNamed == null || r.id().operation().equals(operationNamed));
    return receipt(RecordSearch.unique(store, named, "that status token", "receipt",
        "add --scope and --operation"));
  }

  private boolean narrowed(IntentRecord r) {
    return (operation == null || r.id().operation().equals(operation))
        && (scope == null || r.id().scope().equals(scope));
  }

  private static boolean base64Url(int c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
        || c == '-' || c == '_';
  }

  private static Receipt receipt(IntentRecord record) {
    if (!ReceiptRecords.isReceipt(record)) {
      throw CliException.failure(record.id() + " is " + StoreCommand.kindOf(record)
          + ", not a server receipt");
    }
    return ReceiptRecords.fromRecord(record);
  }
}
