// Transaction search, as the SDK's transaction.search runs it: the ids first (advanced_search_ids), then
// the transactions for those ids (advanced_search). Matches by order id and by ids.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendXml, transactionXml, type BraintreeOptions, type EmulatedTransaction } from './transactions.js';

const matches = (t: EmulatedTransaction, search: Record<string, unknown>): boolean => {
  const orderId = search.order_id as { is?: string } | undefined;
  if (orderId?.is !== undefined && t.orderId !== orderId.is) return false;
  const ids = search.ids as string[] | undefined;
  if (Array.isArray(ids) && !ids.includes(t.id)) return false;
  return true;
};

function found(options: BraintreeOptions, request: FastifyRequest) {
  const { merchantId } = request.params as { merchantId: string };
  const search = ((request.body ?? {}) as { search?: Record<string, unknown> }).search ?? {};
  const transactions = [...options.state.transactions.values()].filter(
    (t) => t.merchantId === merchantId && matches(t, search),
  );
  return { search, transactions };
}

export async function searchIds(options: BraintreeOptions, request: FastifyRequest, reply: FastifyReply) {
  if (await options.applyFault('braintree.search', request, reply)) return reply;
  const { search, transactions } = found(options, request);
  const ids = transactions.map((t) => t.id);
  options.record({
    target: 'braintree.search',
    key: (search.order_id as { is?: string } | undefined)?.is ?? null,
    outcome: `${ids.length} found`,
  });
  return sendXml(reply, 200, 'search-results', { pageSize: 50, ids: { $array: 'item', items: ids } });
}

export async function searchTransactions(
  options: BraintreeOptions,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  return sendXml(reply, 200, 'credit-card-transactions', {
    $array: 'transaction',
    $type: 'collection',
    items: found(options, request).transactions.map(transactionXml),
  });
}
