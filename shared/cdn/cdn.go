// Package cdn is the CloudFront adapter of custom domains: a store's
// domain is a distribution tenant of the multi-tenant distribution the
// CDK stack creates (CloudFront SaaS Manager), with a CloudFront-managed
// certificate. It implements stores.Tenants.
package cdn

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront/types"
	"github.com/aws/smithy-go"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/stores"
	"golang.org/x/sync/errgroup"
)

// NewClient builds the CloudFront client. The endpoint comes from the
// SDK's standard AWS_ENDPOINT_URL_CLOUDFRONT (the local stand-in), and
// every call goes through callstats.Middleware like every AWS call.
func NewClient(cfg aws.Config) *cloudfront.Client {
	return cloudfront.NewFromConfig(cfg, func(o *cloudfront.Options) {
		o.APIOptions = append(o.APIOptions, callstats.Middleware("cloudfront", nil))
	})
}

// Tenants are the distribution tenants of one multi-tenant distribution.
type Tenants struct {
	client         *cloudfront.Client
	distributionID string
}

var _ stores.Tenants = (*Tenants)(nil)

// NewTenants returns the tenants of the distribution.
func NewTenants(client *cloudfront.Client, distributionID string) *Tenants {
	return &Tenants{client: client, distributionID: distributionID}
}

// CreateTenant creates an enabled tenant for domain with a
// CloudFront-managed certificate whose validation token CloudFront serves
// itself (the domain points at CloudFront: that is the owner's CNAME).
func (t *Tenants) CreateTenant(ctx context.Context, name, domain string) (string, error) {
	out, err := t.client.CreateDistributionTenant(ctx, &cloudfront.CreateDistributionTenantInput{
		DistributionId: aws.String(t.distributionID),
		Name:           aws.String(name),
		Domains:        []types.DomainItem{{Domain: aws.String(domain)}},
		Enabled:        aws.Bool(true),
		ManagedCertificateRequest: &types.ManagedCertificateRequest{
			ValidationTokenHost: types.ValidationTokenHostCloudFront,
			PrimaryDomainName:   aws.String(domain),
		},
	})
	if err != nil {
		return "", fmt.Errorf("create distribution tenant %s: %w", name, err)
	}
	if out.DistributionTenant == nil || out.DistributionTenant.Id == nil {
		return "", fmt.Errorf("create distribution tenant %s: no id in the answer", name)
	}
	return *out.DistributionTenant.Id, nil
}

// Tenant reads the tenant and its managed certificate side by side.
// Errors: stores.ErrNoTenant.
func (t *Tenants) Tenant(ctx context.Context, id string) (stores.TenantState, error) {
	var (
		tenant *types.DistributionTenant
		cert   *types.ManagedCertificateDetails
		g      errgroup.Group
	)
	g.Go(func() error {
		out, err := t.client.GetDistributionTenant(ctx, &cloudfront.GetDistributionTenantInput{Identifier: aws.String(id)})
		if err != nil {
			return err
		}
		tenant = out.DistributionTenant
		return nil
	})
	g.Go(func() error {
		out, err := t.client.GetManagedCertificateDetails(ctx, &cloudfront.GetManagedCertificateDetailsInput{Identifier: aws.String(id)})
		if err != nil {
			return err
		}
		cert = out.ManagedCertificateDetails
		return nil
	})
	if err := g.Wait(); err != nil {
		if notFound(err) {
			return stores.TenantState{}, fmt.Errorf("tenant %s: %w", id, stores.ErrNoTenant)
		}
		return stores.TenantState{}, fmt.Errorf("read tenant %s: %w", id, err)
	}
	st := stores.TenantState{CertificateIssued: cert != nil && cert.CertificateStatus == types.ManagedCertificateStatusIssued}
	if tenant != nil {
		active := len(tenant.Domains) > 0
		for _, d := range tenant.Domains {
			active = active && d.Status == types.DomainStatusActive
		}
		st.Serving = aws.ToBool(tenant.Enabled) && aws.ToString(tenant.Status) == "Deployed" && active
	}
	return st, nil
}

// DeleteTenant disables the tenant (CloudFront refuses to delete an
// enabled one) and deletes it. A tenant already gone is not an error. If
// CloudFront still refuses while the disabling deploys, the error says
// so and a retry (the owner's, or the next removal) finishes.
func (t *Tenants) DeleteTenant(ctx context.Context, id string) error {
	got, err := t.client.GetDistributionTenant(ctx, &cloudfront.GetDistributionTenantInput{Identifier: aws.String(id)})
	if notFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read tenant %s: %w", id, err)
	}
	etag := got.ETag
	if tn := got.DistributionTenant; tn != nil && aws.ToBool(tn.Enabled) {
		domains := make([]types.DomainItem, len(tn.Domains))
		for i, d := range tn.Domains {
			domains[i] = types.DomainItem{Domain: d.Domain}
		}
		up, err := t.client.UpdateDistributionTenant(ctx, &cloudfront.UpdateDistributionTenantInput{
			Id: aws.String(id), IfMatch: etag, DistributionId: tn.DistributionId, Domains: domains, Enabled: aws.Bool(false),
		})
		if notFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("disable tenant %s: %w", id, err)
		}
		etag = up.ETag
	}
	_, err = t.client.DeleteDistributionTenant(ctx, &cloudfront.DeleteDistributionTenantInput{Id: aws.String(id), IfMatch: etag})
	if err != nil && !notFound(err) {
		return fmt.Errorf("delete tenant %s: %w", id, err)
	}
	return nil
}

// notFound reports CloudFront's EntityNotFound.
func notFound(err error) bool {
	var nf *types.EntityNotFound
	var api smithy.APIError
	return errors.As(err, &nf) || (errors.As(err, &api) && api.ErrorCode() == "EntityNotFound")
}
