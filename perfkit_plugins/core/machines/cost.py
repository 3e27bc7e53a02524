# Copyright 2026 perfkit-plugins Authors. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Prices and per-dollar figures.

Prices are on-demand USD per hour from a dated table (docs/tables.md gives
its sources) and can always be overridden; every published figure carries
the price's source and date so a reader can redo the arithmetic with
today's prices.
"""

import dataclasses

USER_SOURCE = 'user override (--scylla_*_price_per_hour)'


@dataclasses.dataclass(frozen=True)
class Price:
  """An hourly price and where it came from."""

  usd_per_hour: float
  region: str
  source: str
  date: str


_CATALOG = (
    'ScyllaDB test-suite instance catalog scraped from the cloud pricing pages'
)

PRICE_TABLE = {
    'z3-highmem-88': Price(13.00, 'us-central1', _CATALOG, '2026-05'),
    'z3-highmem-88-highlssd': Price(13.00, 'us-central1', _CATALOG, '2026-05'),
    'z3-highmem-176-standardlssd': Price(
        22.05, 'us-central1', _CATALOG, '2026-05'
    ),
    'i4i.2xlarge': Price(0.686, 'us-east-1', _CATALOG, '2026-05'),
    'i4i.32xlarge': Price(10.98, 'us-east-1', _CATALOG, '2026-05'),
    'i3en.2xlarge': Price(0.904, 'us-east-1', _CATALOG, '2026-05'),
    'i3en.24xlarge': Price(10.848, 'us-east-1', _CATALOG, '2026-05'),
    'c6i.2xlarge': Price(0.34, 'us-east-1', _CATALOG, '2026-05'),
    'c7i.2xlarge': Price(0.357, 'us-east-1', _CATALOG, '2026-05'),
}
# n2-highmem-96 is 6.29 $/h for the VM alone; local SSDs are billed on top
# and no trustworthy price for them was found, so it is not in the table.


def LookUp(machine_type, override=0.0, as_of=''):
  """The price of one VM: the override when given, else the table's.

  Args:
    machine_type: machine type name.
    override: USD per hour given by the user; 0 means none.
    as_of: the date (YYYY-MM-DD) an override holds for: the run's.

  Returns:
    A Price, or None when no price is known.
  """
  if override:
    return Price(override, '', USER_SOURCE, as_of)
  return PRICE_TABLE.get(machine_type)


def ServerPrice(settings, as_of):
  """The price of one server: the override, or the table's for its type.

  Static VMs (own machines) are never priced from the table, whatever
  label they carry: only a price the user gives counts.
  """
  machine_type = '' if settings.servers_static else settings.server_machine_type
  return LookUp(machine_type, settings.server_price_per_hour, as_of)


def LoaderPrice(settings, as_of):
  """The price of one loader, as ServerPrice prices a server."""
  machine_type = '' if settings.loaders_static else settings.loader_machine_type
  return LookUp(machine_type, settings.loader_price_per_hour, as_of)


def OpsPerDollar(ops_per_second, usd_per_hour):
  """Operations bought by one dollar at a sustained rate."""
  return ops_per_second * 3600.0 / usd_per_hour


def DollarsPerMillionOps(ops_per_second, usd_per_hour):
  """USD spent per million operations at a sustained rate."""
  return 1e6 / OpsPerDollar(ops_per_second, usd_per_hour)


def RunCost(hours, counted_prices):
  """USD for `hours` of [(count, Price or None)]; None if a price is unknown."""
  if any(price is None for _, price in counted_prices):
    return None
  return hours * sum(count * p.usd_per_hour for count, p in counted_prices)
