// The operator's operations (players, suspensions, roles, the audit log, the admin pot, refunds), apart
// from the players' own: a bundle puts a module in one file, so a screen that never calls these does not
// carry them (or the schemas they name). operations.ts exports them with the rest.
import * as c from '@omc/contracts';
import { op } from './operation.js';

export const adminUsers = /* @__PURE__ */ op('GET', '/api/admin/users', {
  query: c.AdminUsersQuery,
  response: c.AdminUsersAnswer,
});
export const suspendUser = /* @__PURE__ */ op('POST', '/api/admin/users/:id/suspend', {
  params: c.UserIdParams,
  body: c.SuspendRequest,
  response: c.SuspensionResponse,
});
export const restoreUser = /* @__PURE__ */ op('POST', '/api/admin/users/:id/restore', {
  params: c.UserIdParams,
  body: c.RestoreRequest,
  response: c.SuspensionResponse,
});
export const audit = /* @__PURE__ */ op('GET', '/api/admin/audit', {
  query: c.AuditQuery,
  response: c.AuditPage,
});
export const updateRole = /* @__PURE__ */ op('POST', '/api/admin/updateRole', {
  body: c.UpdateRoleRequest,
  response: c.UpdateRoleAnswer,
});
export const adminCollect = /* @__PURE__ */ op('POST', '/api/admin/collect', {
  body: c.AdminCollectRequest,
  response: c.AdminCollectAnswer,
});
export const approvals = /* @__PURE__ */ op('GET', '/api/admin/approvals', {
  query: c.ApprovalsQuery,
  response: c.ApprovalsAnswer,
});
export const approveApproval = /* @__PURE__ */ op('POST', '/api/admin/approvals/:id/approve', {
  params: c.ApprovalIdParams,
  body: c.ApproveRequest,
  response: c.ApprovalDecision,
});
export const refuseApproval = /* @__PURE__ */ op('POST', '/api/admin/approvals/:id/refuse', {
  params: c.ApprovalIdParams,
  body: c.RefuseRequest,
  response: c.ApprovalDecision,
});
export const refundPurchase = /* @__PURE__ */ op('POST', '/api/admin/purchases/:id/refund', {
  params: c.PurchaseIdParams,
  body: c.RefundRequest,
  response: c.RefundResponse,
});
export const playerPurchases = /* @__PURE__ */ op('GET', '/api/admin/purchases', {
  query: c.PlayerMoneyQuery,
  response: c.AdminPurchasesPage,
});
export const playerPayouts = /* @__PURE__ */ op('GET', '/api/admin/payouts', {
  query: c.PlayerMoneyQuery,
  response: c.AdminPayoutsPage,
});
