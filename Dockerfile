# Herald: one static binary that is the host and its first-party plugins
# (`herald plugin NAME` runs them from the same executable).
# Build:  docker build -t herald --build-arg VERSION=$(git describe --tags --always --dirty) .
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
# The plugin SDK is a module of its own that go.mod replaces with ./sdk.
COPY sdk/go.mod sdk/go.sum ./sdk/
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/herald ./host

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/herald /usr/local/bin/herald
# Embedded mode keeps SQLite, blobs and secret.key here; mount a volume.
ENV HERALD_DATA_DIR=/data HERALD_LISTEN=0.0.0.0:8080 HERALD_LOG_FORMAT=json
VOLUME /data
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/herald"]
CMD ["serve"]
