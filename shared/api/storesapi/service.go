package storesapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/cdn"
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
	var tenants stores.Tenants // nil: custom domains are off
	if id := d.Config.CDNDistributionID; id != "" {
		tenants = cdn.NewTenants(cdn.NewClient(d.AWS), id)
	}
	dns := d.DNS
	if dns == nil {
		dns = cdn.DNS{}
	}
	return stores.NewService(stores.Deps{
		Store: dynamo.NewBookstores(d.Table), Users: dynamo.NewUsers(d.Table), Briefs: dynamo.NewBriefs(d.Table),
		Images: s3media.NewImages(d.AWS, d.Config.MediaBucket, d.Config.MediaBaseURL, d.Now),
		Domains: stores.DomainDeps{
			Tenants: tenants, DNS: dns,
			TargetSuffix: d.Config.StoreDomainTargetSuffix, PlatformDomain: d.Config.PlatformDomain,
		},
		Now: d.Now,
	})
}
