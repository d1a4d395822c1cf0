// Preact binding of @tanstack/virtual-core (the framework-free core that react-virtual wraps): a list
// of variable-height rows inside one scrolling element, rendering only the rows in view.
import { useLayoutEffect, useReducer, useState } from "preact/hooks";
import {
  Virtualizer,
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
  type VirtualizerOptions,
} from "@tanstack/virtual-core";

type Options = Pick<VirtualizerOptions<HTMLElement, HTMLElement>, "count" | "estimateSize" | "getItemKey" | "overscan"> & {
  getScrollElement: () => HTMLElement | null;
};

export function useVirtualizer(options: Options): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const resolved: VirtualizerOptions<HTMLElement, HTMLElement> = {
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    measureElement,
    ...options,
    onChange: () => rerender(undefined),
  };
  const [instance] = useState(() => new Virtualizer(resolved));
  instance.setOptions(resolved);
  useLayoutEffect(() => instance._didMount(), []);
  useLayoutEffect(() => instance._willUpdate());
  return instance;
}
