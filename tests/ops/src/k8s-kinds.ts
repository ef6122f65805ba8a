// The Kubernetes kinds that k8s/ uses, by apiVersion and kind, as kubernetes-models types them. schema.ts
// reads this file with the TypeScript checker to refuse fields that the API does not have (kubectl's
// strict validation, offline). A new kind in k8s/ needs a line here. One file per kind: the packages'
// index files would make the checker read every kind there is.
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import type { IRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { IPodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

export interface KindTypes {
  'v1/ConfigMap': IConfigMap;
  'v1/Namespace': INamespace;
  'v1/Secret': ISecret;
  'v1/Service': IService;
  'v1/ServiceAccount': IServiceAccount;
  'apps/v1/Deployment': IDeployment;
  'apps/v1/StatefulSet': IStatefulSet;
  'batch/v1/Job': IJob;
  'batch/v1/CronJob': ICronJob;
  'autoscaling/v2/HorizontalPodAutoscaler': IHorizontalPodAutoscaler;
  'policy/v1/PodDisruptionBudget': IPodDisruptionBudget;
  'networking.k8s.io/v1/Ingress': IIngress;
  'networking.k8s.io/v1/NetworkPolicy': INetworkPolicy;
  'rbac.authorization.k8s.io/v1/Role': IRole;
  'rbac.authorization.k8s.io/v1/RoleBinding': IRoleBinding;
  'monitoring.coreos.com/v1/PrometheusRule': IPrometheusRule;
  'monitoring.coreos.com/v1/PodMonitor': IPodMonitor;
  'monitoring.coreos.com/v1/ServiceMonitor': IServiceMonitor;
}
