# The CloudNativePG PostgreSQL image with the rum extension, for the chart's postgres.cnpg.imageName
# (with postgres.cnpg.rum: true): ranked search then takes its candidates from a RUM index.
#   docker build -f deploy/postgres-rum.Dockerfile -t registry.example.com/postgresql-rum:15 deploy
# The image is Debian with the PGDG repository, which packages rum for every major; keep the major
# the same as the tag's.
FROM ghcr.io/cloudnative-pg/postgresql:15
USER root
RUN apt-get update \
  && apt-get install -y --no-install-recommends postgresql-15-rum \
  && rm -rf /var/lib/apt/lists/*
# The image's postgres user (CloudNativePG runs the instance as UID 26).
USER 26
