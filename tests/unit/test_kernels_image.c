/* Unit test of templates/image.c: GridSample, AffineGrid, Col2Im, CenterCropPad, RoiAlign,
 * DeformConv and NonMaxSuppression against hand-computed values. */
#include "../../templates/image.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static void test_gridsample(void)
{
    /* x [1][1][2][2] = {{1, 2}, {3, 4}}; grid points as (x, y) = (W, H) pairs */
    const float x[4] = {1, 2, 3, 4};
    const int64_t dims[2] = {2, 2};
    const float g1[6] = {0, 0, -1, -1, 1, -1};
    float y[3];
    gridsample_f32(1, 1, 2, dims, 3, 0, 0, 1, x, g1, y);
    check(y[0] == 2.5f && y[1] == 1.0f && y[2] == 2.0f, "gridsample linear align_corners");
    gridsample_f32(1, 1, 2, dims, 3, 1, 0, 1, x, g1, y);
    check(y[0] == 1.0f && y[1] == 1.0f && y[2] == 2.0f, "gridsample nearest halves to even");
    gridsample_f32(1, 1, 2, dims, 3, 2, 0, 1, x, g1, y);
    check(y[1] == 1.0f && y[2] == 2.0f, "gridsample cubic at grid points");
    /* align_corners 0: (-1, -1) is pixel coordinate (-0.5, -0.5), half outside */
    const float g2[2] = {-1, -1};
    gridsample_f32(1, 1, 2, dims, 1, 0, 0, 0, x, g2, y);
    check(y[0] == 0.25f, "gridsample zeros padding");
    gridsample_f32(1, 1, 2, dims, 1, 0, 1, 0, x, g2, y);
    check(y[0] == 1.0f, "gridsample border padding");
    gridsample_f32(1, 1, 2, dims, 1, 0, 2, 0, x, g2, y);
    check(y[0] == 1.0f, "gridsample reflection padding");
    /* far outside: (W, H) = (-3, 0), align_corners 1: pixel W -1 clamps to 0 (border) or
     * reflects off 0 to 1 (reflection); pixel H 0.5 interpolates rows */
    const float g3[2] = {-3, 0};
    gridsample_f32(1, 1, 2, dims, 1, 0, 1, 1, x, g3, y);
    check(y[0] == 2.0f, "gridsample border clamps the coordinate");
    gridsample_f32(1, 1, 2, dims, 1, 0, 2, 1, x, g3, y);
    check(y[0] == 3.0f, "gridsample reflection of the coordinate");
    check(gridsample_reflect(-1.0, -0.5, 1.5) == 0.0 && gridsample_reflect(2.0, -0.5, 1.5) == 1.0 &&
              gridsample_reflect(-3.0, 0.0, 1.0) == 1.0,
          "gridsample_reflect");
    /* 1-D, two channels, cubic at the midpoint of {0, 1, 2, 3}: linear data stays linear */
    const float x1[8] = {0, 1, 2, 3, 0, 2, 4, 6};
    const int64_t d1[1] = {4};
    const float g4[1] = {0};
    float y2[2];
    gridsample_f32(1, 2, 1, d1, 1, 2, 1, 1, x1, g4, y2);
    check(y2[0] == 1.5f && y2[1] == 3.0f, "gridsample cubic 1-D two channels");
}

static void test_nms(void)
{
    /* [y1, x1, y2, x2]: box 1 overlaps box 0 with IoU 0.9/1.1; box 2 is apart */
    const float boxes[12] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3};
    const float scores[3] = {0.9f, 0.8f, 0.7f};
    int64_t out[9], work[6];
    int64_t n = nms_i64(1, 1, 3, boxes, scores, 10, 0.5f, 0, 0.0f, 0, out, work);
    check(n == 2 && out[2] == 0 && out[5] == 2, "nms suppresses by IoU");
    n = nms_i64(1, 1, 3, boxes, scores, 10, 0.85f, 0, 0.0f, 0, out, work);
    check(n == 3 && out[5] == 1, "nms keeps below the IoU threshold");
    n = nms_i64(1, 1, 3, boxes, scores, 1, 0.5f, 0, 0.0f, 0, out, work);
    check(n == 1 && out[2] == 0, "nms max per class");
    n = nms_i64(1, 1, 3, boxes, scores, 10, 0.5f, 1, 0.75f, 0, NULL, work);
    check(n == 1, "nms score threshold, counting only");
    /* equal scores: lower index first; center format (x, y, w, h) */
    const float cb[8] = {0.5f, 0.5f, 1, 1, 5.5f, 0.5f, 1, 1};
    const float eq[2] = {0.5f, 0.5f};
    n = nms_i64(1, 1, 2, cb, eq, 10, 0.5f, 0, 0.0f, 1, out, work);
    check(n == 2 && out[2] == 0 && out[5] == 1, "nms ties and center_point_box");
    check(nms_suppress(cb, cb, 1, 0.5f) && !nms_suppress(cb, cb + 4, 1, 0.0f), "nms_suppress");
}

static void test_col2im(void)
{
    /* 1-D image 2, block 2, pads 1 + 1: three blocks at -1, 0, 1 */
    const int64_t geo[6] = {2, 2, 3, 1, 1, 1};
    const float x[6] = {1, 2, 3, 10, 20, 30};
    float y[2];
    col2im_f32(1, 1, 1, geo, x, y);
    check(y[0] == 12.0f && y[1] == 23.0f, "col2im 1-D with pads");
    /* 2-D image 2x2, block 1x2, stride 1, dilation 1: blocks at (h, 0) */
    const int64_t g2[12] = {2, 2, 1, 2, 2, 1, 1, 1, 0, 0, 1, 1};
    const float x2[4] = {1, 2, 3, 4};
    float y2[4];
    col2im_f32(1, 1, 2, g2, x2, y2);
    check(y2[0] == 1.0f && y2[1] == 3.0f && y2[2] == 2.0f && y2[3] == 4.0f, "col2im 2-D");
}

static void test_center_crop_pad(void)
{
    const float x[5] = {0, 1, 2, 3, 4};
    float y[6];
    const int64_t crop[3] = {5, 2, 1};
    center_crop_pad_bytes(1, crop, 4, x, y);
    check(y[0] == 1.0f && y[1] == 2.0f, "center crop");
    const int64_t pad[3] = {3, 6, -1};
    center_crop_pad_bytes(1, pad, 4, x, y);
    check(y[0] == 0.0f && y[1] == 0.0f && y[2] == 1.0f && y[3] == 2.0f && y[4] == 0.0f &&
              y[5] == 0.0f,
          "center pad");
}

static void test_roialign(void)
{
    const float x[4] = {1, 2, 3, 4}, roi[4] = {0, 0, 1, 1};
    const int64_t batch[1] = {0};
    float y[1];
    roialign_f32(1, 1, 2, 2, 1, 1, 1, 1, 1.0f, 0, 0, x, roi, batch, y);
    check(y[0] == 2.5f, "roialign avg at the roi center");
    roialign_f32(1, 1, 2, 2, 1, 1, 1, 1, 1.0f, 0, 1, x, roi, batch, y);
    check(y[0] == 1.0f, "roialign max of the weighted corners");
    roialign_f32(1, 1, 2, 2, 1, 1, 1, 1, 1.0f, 1, 0, x, roi, batch, y);
    check(y[0] == 1.0f, "roialign half_pixel");
    const float roi2[4] = {0, 0, 2, 2};
    roialign_f32(1, 1, 2, 2, 1, 1, 1, 0, 0.5f, 0, 0, x, roi2, batch, y);
    check(y[0] == 2.5f, "roialign spatial_scale, adaptive sampling");
}

static void test_affine_grid(void)
{
    const float id[6] = {1, 0, 0, 0, 1, 0};
    const int64_t dims[2] = {2, 2};
    float g[8];
    affine_grid_f32(1, 2, dims, 0, id, g);
    const float want0[8] = {-0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f};
    check(!memcmp(g, want0, sizeof g), "affine grid identity");
    const float t[6] = {1, 0, 0.25f, 0, 2, 0};
    affine_grid_f32(1, 2, dims, 1, t, g);
    const float want1[8] = {-0.75f, -2, 1.25f, -2, -0.75f, 2, 1.25f, 2};
    check(!memcmp(g, want1, sizeof g), "affine grid align_corners, scale and shift");
}

static void test_deform_conv(void)
{
    const float x[4] = {1, 2, 3, 4}, w[1] = {2};
    const int64_t geo[10] = {1, 1, 1, 1, 1, 1, 0, 0, 1, 1};
    float off[8] = {0}, y[4];
    deform_conv_f32(1, 1, 2, 2, 1, 2, 2, geo, x, w, off, NULL, NULL, y);
    check(y[0] == 2.0f && y[3] == 8.0f, "deform conv zero offsets");
    for (int i = 0; i < 8; i++)
        off[i] = 0.5f;
    const float mask[4] = {0.5f, 0.5f, 0.5f, 0.5f}, bias[1] = {1};
    deform_conv_f32(1, 1, 2, 2, 1, 2, 2, geo, x, w, off, mask, bias, y);
    check(y[0] == 1.0f + 2.5f && y[3] == 1.0f + 1.0f, "deform conv offsets, mask, bias");
    check(deform_sample(2, 2, x, -0.5f, 0.0f) == 0.5f, "deform sample zero outside");
}

int main(void)
{
    test_gridsample();
    test_nms();
    test_col2im();
    test_center_crop_pad();
    test_roialign();
    test_affine_grid();
    test_deform_conv();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
