/*
 * test_plot_fig.c - a figure's legend (analysis/plot_fig.c, plot__dedupe):
 * no entry twice. A line repeating an earlier one (title and rows) is
 * dropped; one with an earlier title and other rows is numbered, past any
 * number already taken; the order of the others is kept.
 */
#include <string.h>

#include "../analysis/plot_internal.h"
#include "test.h"

static plot_line *add(plot_fig *f, const char *title, double y)
{
    plot_line *l = plot__line(f, "%s", title);
    if (l) {
        plot__row(l, 0, y, y, y);
        plot__row(l, 1, 2 * y, 2 * y, 2 * y);
    }
    return l;
}

TEST(dedupe_drops_repeats_and_numbers_same_titles)
{
    plot_fig *f = calloc(1, sizeof *f);
    ASSERT_TRUE(f != NULL);
    ASSERT_TRUE(add(f, "A: x", 1) && add(f, "B: x", 1) && add(f, "A: x", 1));
    ASSERT_TRUE(add(f, "A: y", 2) && add(f, "A: y (2)", 5) && add(f, "A: y", 3));
    ASSERT_TRUE(add(f, "A: y", 4));
    ASSERT_EQ(plot__dedupe(f), 6);
    static const char *const want[] = {"A: x", "B: x", "A: y", "A: y (2)", "A: y (3)",
                                       "A: y (4)"};
    static const double first_y[] = {1, 1, 2, 5, 3, 4};
    for (size_t i = 0; i < 6; i++) {
        ASSERT_TRUE(!strcmp(f->lines[i].title, want[i]));
        ASSERT_TRUE(f->lines[i].n == 2 && f->lines[i].rows[0].y == first_y[i]);
    }
    for (size_t i = 0; i < f->nlines; i++)
        for (size_t j = 0; j < i; j++)
            ASSERT_TRUE(strcmp(f->lines[i].title, f->lines[j].title) != 0);
    plot__fig_free(f);
    free(f);
}

static const test_case cases[] = {
    {"dedupe_drops_repeats_and_numbers_same_titles",
     dedupe_drops_repeats_and_numbers_same_titles},
};

TEST_MAIN(cases)
