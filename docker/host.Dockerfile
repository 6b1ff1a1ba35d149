# The host's image for runtime.kind swarm (scripts/build-host-image.sh): the CLI with the host it
# starts, deployed with its production dependencies, and the same node binary as the machine that
# built it (native addons built there load here). It runs as root: it drives the Docker socket.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
COPY node /usr/local/bin/node
COPY app /opt/openlegion
WORKDIR /opt/openlegion
ENTRYPOINT ["/usr/local/bin/node", "/opt/openlegion/bundle/bin.mjs"]
CMD ["start"]
