package telemetry

import (
	"go.opentelemetry.io/otel/attribute"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
)

// resource names the service in every span: service.name "mcpvec" (the
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES variables override it).
func resource(version string) *sdkresource.Resource {
	base := sdkresource.NewSchemaless(attribute.String("service.name", "mcpvec"), attribute.String("service.version", version))
	r, err := sdkresource.Merge(base, sdkresource.Environment())
	if err != nil {
		return base
	}
	return r
}
