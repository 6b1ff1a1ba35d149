# The OpenLegion agent image. Built by scripts/build-agent-image.sh with the classic builder from a
# context holding `node` (the host's own node binary) and `app/` (a self-contained pnpm deployment of
# @openlegion/agent with its native addons built on the host).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

# Security and point-release updates, or Chromium is an old version. Chromium is only installed:
# the agent launches it on demand, nothing starts it with the container.
RUN printf '%s\n' \
      'deb http://deb.debian.org/debian bookworm main' \
      'deb http://deb.debian.org/debian bookworm-updates main' \
      'deb http://deb.debian.org/debian-security bookworm-security main' \
      > /etc/apt/sources.list \
 && rm -f /etc/apt/sources.list.d/debian.sources \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium fonts-liberation fonts-noto-color-emoji ca-certificates \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*

# The same Node as the host, so native modules built there load here (same ABI, same glibc).
COPY node /usr/local/bin/node

# A fresh named volume takes the ownership of the image's /data, so it must belong to uid 1000.
RUN groupadd --gid 1000 agent \
 && useradd --uid 1000 --gid 1000 --no-create-home --home-dir /data --shell /usr/sbin/nologin agent \
 && mkdir -p /data \
 && chown 1000:1000 /data

WORKDIR /app
# Owned by root: the agent cannot change its own code (the root fs is read-only at run time anyway).
COPY app/ /app/

# MCP servers from npm an agent can run over stdio (docs/tools.md, "MCP servers"): one bundled file
# each under /opt/openlegion/mcp, and a launcher on PATH named like the package's own bin.
COPY mcp/ /opt/openlegion/mcp/
RUN for server in everything filesystem; do \
      printf '#!/bin/sh\nexec /usr/local/bin/node /opt/openlegion/mcp/server-%s/dist/index.mjs "$@"\n' "$server" \
        > "/usr/local/bin/mcp-server-$server" \
   && chmod 755 "/usr/local/bin/mcp-server-$server"; \
    done

USER 1000
ENV NODE_ENV=production HOME=/data
EXPOSE 8400
# The esbuild bundle: one file loads ~2x faster than the unbundled dist/ (fleet start-up time).
CMD ["node", "/app/bundle/main.mjs"]
