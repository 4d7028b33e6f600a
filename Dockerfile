# The vine command in a small image: a static binary, run as a non-root
# user, serving the forest mounted at /forest over HTTP.
#
#   docker build -t vine .
#   docker run -p 8080:8080 -v "$PWD/my-forest:/forest" -v "$PWD/keys.yaml:/etc/vine/keys.yaml:ro" \
#     vine serve --forest /forest --http :8080 --keys /etc/vine/keys.yaml --allow-host vine.example
#
# The forest volume must be writable by uid 65532 (distroless nonroot).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -buildvcs=auto -trimpath -ldflags='-s -w' -o /out/vine ./adapters/cli/vine

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/vine /usr/local/bin/vine
USER nonroot:nonroot
WORKDIR /forest
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/vine"]
CMD ["serve", "--forest", "/forest", "--http", ":8080", "--keys", "/etc/vine/keys.yaml"]
