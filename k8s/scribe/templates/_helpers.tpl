{{- define "scribe.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 50 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "scribe.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "scribe.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "scribe.image" -}}
{{ required "image.repository is required: the registry path you pushed the Scribe image to (README: Build and push the image)" .Values.image.repository }}:{{ required "image.tag is required: the tag you pushed the Scribe image with (README: Build and push the image)" .Values.image.tag }}
{{- end -}}

{{- define "scribe.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ default (include "scribe.fullname" .) .Values.serviceAccount.name }}{{- else -}}{{ default "default" .Values.serviceAccount.name }}{{- end -}}
{{- end -}}

{{- define "scribe.secretName" -}}
{{- default (printf "%s-secrets" (include "scribe.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* Environment shared by every container: settings, bus, database. */}}
{{- define "scribe.env" -}}
{{- if not (or .Values.secrets.existingSecret .Values.secrets.values.SECRET_KEY) }}
{{- fail "SECRET_KEY is required: set secrets.existingSecret to a Secret holding SECRET_KEY, or secrets.values.SECRET_KEY (e.g. openssl rand -hex 32)" }}
{{- end }}
# Named, not only through envFrom: a Secret without the key keeps the pod from starting.
- name: SECRET_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "scribe.secretName" . }}
      key: SECRET_KEY
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
{{- if .Values.postgres.cnpg.enabled }}
      name: {{ include "scribe.fullname" . }}-db-app
      key: uri
{{- else }}
      name: {{ include "scribe.secretName" . }}
      key: DATABASE_URL
{{- end }}
{{- end -}}
