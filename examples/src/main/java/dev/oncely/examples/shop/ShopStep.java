package dev.oncely.examples.shop;

/**
 * The named steps of one payment's handler, in order, as a {@link ShopProbe} hears them. Each
 * names the moment just after it, where a crash leaves a different state behind:
 *
 * <table>
 *   <caption>Where a crash after each step leaves a payment</caption>
 *   <tr><th>step</th><th>state after a crash right after it</th><th>the repeat</th></tr>
 *   <tr><td>{@link #HANDLER_STARTED}</td><td>receipt processing, no payment</td>
 *       <td>after the lease: recovery finds no payment, the handler runs again</td></tr>
 *   <tr><td>{@link #PROVIDER_ANSWERED}</td><td>the provider charged (its intent completed in
 *       the outbound store), no payment</td><td>the handler runs again; the client answers the
 *       charge from its store, the payment is made once</td></tr>
 *   <tr><td>{@link #BUSINESS_COMMITTED}</td><td>payment committed, the receipt does not know
 *       </td><td>recovery finds the payment by the receipt's token and renders it</td></tr>
 *   <tr><td>{@link #RECOVERY_POINT_RECORDED}</td><td>payment committed, the receipt says
 *       effects committed, no stored answer</td><td>recovery renders the payment</td></tr>
 * </table>
 */
public enum ShopStep {
  /** The request is valid and the handler owns its receipt; nothing was done yet. */
  HANDLER_STARTED,
  /** The provider charge has an outcome (only with a provider); no payment was made yet. */
  PROVIDER_ANSWERED,
  /** The payment is committed in the ledger; the receipt does not record it yet. */
  BUSINESS_COMMITTED,
  /** The receipt records the recovery point (effects committed); its answer is not stored yet. */
  RECOVERY_POINT_RECORDED
}
