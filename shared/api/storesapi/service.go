package storesapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/cdn"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/stores"
)

// Service is the store service of the stores group (and of the demo
// data), with the clients only this group uses, built here from d.AWS so
// that no other function links them: the media bucket for logos and
// banners, and the CDN's tenants (when a distribution is configured) and
// the resolver for custom domains.
func Service(d api.Deps) *stores.Service {
	domains := ReadDomainSettings(d.Env)
	var tenants stores.Tenants // nil: custom domains are off
	if id := domains.DistributionID; id != "" {
		tenants = cdn.NewTenants(cdn.NewClient(d.AWS), id)
	}
	dns := d.DNS
	if dns == nil {
		dns = cdn.DNS{}
	}
	return stores.NewService(stores.Deps{
		Store: dynamo.NewBookstores(d.Table), Users: dynamo.NewUsers(d.Table), Briefs: dynamo.NewBriefs(d.Table),
		Images: s3media.NewImages(d.AWS, s3media.ReadSettings(d.Env), d.Now),
		Domains: stores.DomainDeps{
			Tenants: tenants, DNS: dns,
			TargetSuffix: domains.TargetSuffix, PlatformDomain: domains.PlatformDomain,
		},
		Now: d.Now,
	})
}

// The custom domains' settings, this group's own (the local run's
// CloudFront stand-in reads them too, ReadDomainSettings).
const (
	// EnvDistributionID is the multi-tenant CloudFront distribution that
	// serves stores' domains (set by the CDK stack; unset turns custom
	// domains off).
	EnvDistributionID = "STORE_DISTRIBUTION_ID"
	// EnvDomainTarget is the suffix of each store's CNAME target
	// ({slug}.<suffix>).
	EnvDomainTarget = "STORE_DOMAIN_TARGET_SUFFIX"
	// EnvPlatformDomain is the platform's own domain, which no store may
	// claim.
	EnvPlatformDomain = "PLATFORM_DOMAIN"
)

// Defaults of the custom domains' settings.
const (
	DefaultDomainTarget   = "stores.bookplatform.example"
	DefaultPlatformDomain = "bookplatform.example"
)

// DomainSettings are the custom domains' settings.
type DomainSettings struct {
	// DistributionID is the distribution's id ("": custom domains off).
	DistributionID string
	// TargetSuffix and PlatformDomain: host names, lower case, no
	// trailing dot.
	TargetSuffix   string
	PlatformDomain string
}

// ReadDomainSettings reads the custom domains' settings through env.
func ReadDomainSettings(env *config.Env) DomainSettings {
	return DomainSettings{
		DistributionID: env.String(EnvDistributionID),
		TargetSuffix:   env.HostName(EnvDomainTarget, DefaultDomainTarget),
		PlatformDomain: env.HostName(EnvPlatformDomain, DefaultPlatformDomain),
	}
}
